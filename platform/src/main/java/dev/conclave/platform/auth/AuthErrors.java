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
      "this session was opened with a 'bridge' token: it may subscribe and read, never act (log in with an 'api' token)");
  }

  public static ConclaveException missingSession() {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "session_missing", "not logged in: POST /auth/session {\"token\": \"…\"} first");
  }
}
