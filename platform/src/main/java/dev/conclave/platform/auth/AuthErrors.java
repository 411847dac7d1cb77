package dev.conclave.platform.auth;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;

/** Every authentication and authorization failure, defined once. */
public final class AuthErrors {

  private AuthErrors() {
  }

  public static ConclaveException missingToken() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_missing",
      "no bearer token: send 'authorization: Bearer <token>'");
  }

  public static ConclaveException malformedHeader() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_malformed",
      "the authorization header is not of the form 'Bearer <token>'");
  }

  public static ConclaveException invalidToken() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_invalid",
      "the token is not valid: bad signature or claims");
  }

  /** A token whose {@code nbf} (not before) is still ahead. Conclave issues none; such a token was made elsewhere. */
  public static ConclaveException notYetValid() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_not_yet_valid", "the token is not valid yet (its nbf is in the future)");
  }

  /** A well-signed token whose id ({@code jti}) no node ever issued, or one whose record disagrees with it. */
  public static ConclaveException unknownToken() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_unknown", "no token with this id was issued here");
  }

  /** The token's principal is disabled or deleted (its tokens may not have been revoked one by one). */
  public static ConclaveException principalInactive(String status) {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_principal_inactive",
      "the token's principal is " + status);
  }

  /** An MCP token whose agent session has ended (or that no session ever held). */
  public static ConclaveException sessionEnded() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_session_ended",
      "this MCP token's agent session has ended; the agent gets a new token in the Welcome of its next registration");
  }

  public static ConclaveException capabilityNotGrantable(String capability) {
    return new ConclaveException(ErrorKind.INVALID_ARGUMENT, "capability_not_grantable",
      "capability '" + capability + "' is not granted by admins (grantable: " + String.join(", ",
        new java.util.TreeSet<>(CapabilityGrants.GRANTABLE)) + "); an agent declares any other capability itself");
  }

  public static ConclaveException capabilityOnlyForAgents(String principalId, String type) {
    return new ConclaveException(ErrorKind.INVALID_ARGUMENT, "capability_not_grantable",
      "capabilities are granted to agent principals; principal " + principalId + " is a '" + type + "' principal");
  }

  /** An agent used a tool whose capability needs a grant its principal does not hold (any longer). */
  public static ConclaveException capabilityNotGranted(String agentId, String capability) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "capability_not_granted",
      "agent '" + agentId + "' has not been granted the '" + capability + "' capability (an admin grants it:"
        + " POST /api/v1/gateway/principals/{principalId}/capabilities {\"capability\": \"" + capability + "\"})");
  }

  public static ConclaveException expired() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_expired", "the token has expired");
  }

  public static ConclaveException revoked() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_revoked", "the token has been revoked");
  }

  public static ConclaveException wrongPurpose(String purpose, String expected) {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "token_wrong_purpose",
      "this is an '" + purpose + "' token; only '" + expected + "' tokens are accepted here");
  }

  public static ConclaveException purposeNotIssuable(String purpose) {
    return new ConclaveException(ErrorKind.INVALID_ARGUMENT, "purpose_invalid",
      "purpose must be 'api' or 'bridge', got '" + purpose + "' (MCP tokens come only in an agent's Welcome)");
  }

  public static ConclaveException memberRequired(String route) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "member_required", route + " needs the member, admin or owner role");
  }

  public static ConclaveException packPrincipalRequired(String route, String type) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "pack_principal_required",
      route + " is only for principals of type 'pack'; this token belongs to a principal of type '" + type
        + "' (create a pack principal with ./conclave token --new-pack NAME)");
  }

  public static ConclaveException agentPrincipalRequired(String route, String type) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "agent_principal_required",
      route + " is only for principals of type 'agent'; this token belongs to a principal of type '" + type + "'");
  }

  public static ConclaveException noAgentAccess(String agentId) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "agent_access_denied",
      "you do not own agent '" + agentId + "' and were not granted access to it");
  }

  public static ConclaveException noConversationAccess(String conversationKey) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "conversation_access_denied",
      "you have no access to the agent of conversation '" + conversationKey + "'");
  }

  /** An open stream ends because its credentials went away. */
  public static ConclaveException credentialsRevoked(String reason) {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "credentials_revoked", "this stream was closed: " + reason);
  }

  /**
   * An open follower ends because its caller lost access to what it followed (a grant taken back, a
   * binding moved or deleted, a role removed, an agent's ownership changed).
   */
  public static ConclaveException accessRevoked(String what, String why) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "access_revoked", "access to " + what + " was taken away: " + why);
  }

  public static ConclaveException adminRequired() {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "admin_required", "this operation needs the admin or owner role");
  }

  public static ConclaveException unknownPrincipal(String id) {
    return new ConclaveException(ErrorKind.NOT_FOUND, "principal_not_found", "no principal with id " + id);
  }

  public static ConclaveException principalNotActive(String id, String status) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "principal_not_approved",
      "principal " + id + " is " + status + ", not approved");
  }

  public static ConclaveException invalidTtl(long seconds, long max) {
    return new ConclaveException(ErrorKind.INVALID_ARGUMENT, "ttl_invalid",
      "ttl_seconds must be between 1 and " + max + ", got " + seconds);
  }

  public static ConclaveException csrfHeaderRequired() {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "csrf_header_required",
      "a request authenticated by the session cookie that changes something must carry the header 'X-Conclave-Csrf: 1'");
  }

  public static ConclaveException readOnlySession() {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "session_read_only",
      "this session was opened with a 'bridge' token: it may subscribe and read, never act or open a session socket (log in with an 'api' token)");
  }

  /** A browser's request from a page of another origin, which the session cookie never authenticates. */
  public static ConclaveException originNotAllowed(String origin) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "origin_not_allowed",
      "a page of another origin (" + dev.conclave.platform.validation.TextRules.echo(String.valueOf(origin))
        + ") may not use the console's session; only the node's own pages may (programs: send 'authorization: Bearer <token>')");
  }

  /** A WebSocket the session cookie would open without the node's own Origin, the one proof an upgrade can carry. */
  public static ConclaveException originRequired() {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "origin_required",
      "a WebSocket opened with the session cookie must come from the node's own page (its Origin header); programs send 'authorization: Bearer <token>'");
  }

  public static ConclaveException missingSession() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "session_missing", "not logged in: POST /auth/session {\"token\": \"…\"} first");
  }
}
