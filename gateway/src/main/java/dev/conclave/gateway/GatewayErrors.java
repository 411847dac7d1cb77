package dev.conclave.gateway;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;

/** Every failure the gateway reports to callers, defined once. */
public final class GatewayErrors {

  private GatewayErrors() {
  }

  public static ConclaveException firstMessageNotRegister(String got) {
    return ConclaveException.invalid("register_expected", "the first message on AgentStream must be 'register', got '" + got + "'");
  }

  public static ConclaveException missingAgentId() {
    return ConclaveException.invalid("agent_id_missing", "RegisterAgent.agent_id is required");
  }

  public static ConclaveException badAgentId(String why) {
    return ConclaveException.invalid("agent_id_invalid", "RegisterAgent.agent_id " + why);
  }

  public static ConclaveException badAgentName(String why) {
    return ConclaveException.invalid("agent_name_invalid", "RegisterAgent.name " + why);
  }

  public static ConclaveException registerTimeout(long seconds) {
    return new ConclaveException(ErrorKind.DEADLINE_EXCEEDED, "register_timeout",
      "no RegisterAgent within " + seconds + " s of opening the stream");
  }

  public static ConclaveException alreadyRegistered() {
    return ConclaveException.invalid("already_registered", "RegisterAgent may only be sent once per stream");
  }

  public static ConclaveException eventTooLarge(int bytes, int max) {
    return new ConclaveException(ErrorKind.PAYLOAD_TOO_LARGE, "event_too_large",
      "a stored message or event may be at most " + max + " bytes (CONCLAVE_MAX_EVENT_BYTES), this one is " + bytes);
  }

  public static ConclaveException emptyMessage() {
    return ConclaveException.invalid("payload_missing", "the message has no payload (unknown or empty oneof)");
  }

  public static ConclaveException agentIdOwned(String agentId) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "agent_id_owned",
      "agent id '" + agentId + "' belongs to another principal; register under another id, or have an admin delete that principal");
  }

  public static ConclaveException agentIdTaken(String agentId) {
    return new ConclaveException(ErrorKind.ALREADY_EXISTS, "agent_id_taken",
      "agent '" + agentId + "' is connected by another principal");
  }

  public static ConclaveException principalNotApproved(String status) {
    return new ConclaveException(ErrorKind.PERMISSION_DENIED, "principal_not_approved",
      "this principal is " + status + "; an admin must approve it before it can register agents");
  }

  public static ConclaveException idleTimeout(long seconds) {
    return new ConclaveException(ErrorKind.DEADLINE_EXCEEDED, "agent_silent",
      "no message from the agent for " + seconds + " s; send heartbeats");
  }

  public static ConclaveException agentUnreachable(long seconds) {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "agent_unreachable",
      "the agent's connection did not answer an HTTP/2 PING within " + seconds + " s; reconnect");
  }

  public static ConclaveException superseded() {
    return new ConclaveException(ErrorKind.CONFLICT, "superseded", "a newer connection registered the same agent");
  }

  public static ConclaveException nodeStopping() {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "node_stopping", "this node is shutting down; reconnect");
  }

  /** More agents wait to register here than the node queues: the agent should try another node. */
  public static ConclaveException nodeBusy(int queued) {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "node_busy",
      queued + " agents already wait to register on this node; try another node or retry shortly");
  }

  /** The agent's stream closed while its registration waited for its turn (nobody is left to tell). */
  public static ConclaveException streamClosedWhileWaiting() {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "stream_closed", "the stream closed before its registration's turn");
  }

  public static ConclaveException required(String field) {
    return ConclaveException.invalid("field_required", field + " is required");
  }

  public static ConclaveException invalid(String field, String rule) {
    return ConclaveException.invalid("field_invalid", field + " " + rule);
  }

  public static ConclaveException unknownConversation(String key) {
    return ConclaveException.notFound("conversation_unknown",
      "conversation_key '" + key + "' matches no binding and no known agent");
  }

  public static ConclaveException routeMoving(String key) {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "route_changing",
      "conversation " + key + " was routed to another agent each time the message was written; retry");
  }

  public static ConclaveException injectionNotFound(String id) {
    return ConclaveException.notFound("injection_not_found", "no injection " + id);
  }

  public static ConclaveException agentNotFound(String agentId) {
    return ConclaveException.notFound("agent_not_found", "no agent '" + agentId + "' has registered");
  }

  public static ConclaveException ownerOnly(String agentId) {
    return ConclaveException.denied("only the owner of agent '" + agentId + "' or an admin may change who has access to it");
  }

  public static ConclaveException requestNotFound(String id) {
    return ConclaveException.notFound("request_not_found", "no request " + id);
  }

  public static ConclaveException requestFinished(String id, String state) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "request_finished", "request " + id + " already ended (" + state + ")");
  }

  public static ConclaveException agentNotConnected(String agentId) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "agent_not_connected", "agent '" + agentId + "' is not connected");
  }

  public static ConclaveException agentUnknown(String agentId) {
    return ConclaveException.notFound("agent_not_found", "no agent '" + agentId + "' has ever registered");
  }

  public static ConclaveException featureNotDeclared(String agentId, String feature) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "feature_not_supported",
      "agent '" + agentId + "' did not declare the '" + feature + "' protocol feature");
  }

  public static ConclaveException agentNotReading(String agentId) {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "agent_busy", "agent '" + agentId + "' is not reading its stream; retry later");
  }

  public static ConclaveException bindingNotFound(String id) {
    return ConclaveException.notFound("binding_not_found", "no binding " + id);
  }

  public static ConclaveException bindingExists(String frontend, String channel) {
    return new ConclaveException(ErrorKind.ALREADY_EXISTS, "binding_exists", "a binding for " + frontend + ":" + channel + " already exists");
  }

  public static ConclaveException badBinding(String field, String why) {
    return ConclaveException.invalid("binding_invalid", field + " " + why);
  }

  public static ConclaveException fingerprintTaken() {
    return new ConclaveException(ErrorKind.ALREADY_EXISTS, "fingerprint_taken", "a principal with this key fingerprint already exists");
  }

  public static ConclaveException badCursor() {
    return ConclaveException.invalid("cursor_invalid", "cursor is not one returned by GetEvents");
  }

  public static ConclaveException badEventId(String id) {
    return ConclaveException.invalid("event_id_invalid", "since_event_id '" + id + "' is not an event id of this conversation");
  }

  public static ConclaveException ownerUnreachable(String agentId) {
    return new ConclaveException(ErrorKind.UNAVAILABLE, "owner_unreachable", "the node holding agent '" + agentId + "' did not answer; retry");
  }
  // ---- registry and lifecycle (seed 004) ------------------------------------------------------

  public static ConclaveException badClassification(String why) {
    return ConclaveException.invalid("classification_invalid", "classification " + why);
  }

  public static ConclaveException badLifecycleState(String given) {
    return ConclaveException.invalid("lifecycle_state_invalid", "'" + given + "' is not a lifecycle state; use one of Defined, Provisioning,"
      + " Initialized, Running, Paused, Maintaining, Evolving, Retiring, Retired");
  }

  public static ConclaveException lifecycleIllegal(String agentId, String from, String to, String why) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "lifecycle_transition_illegal",
      "agent '" + agentId + "' cannot go from " + from + " to " + to + ": " + why);
  }

  public static ConclaveException agentRetired(String agentId) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "agent_retired",
      "agent '" + agentId + "' is retired: it takes no work and may not register again");
  }

  public static ConclaveException agentExists(String agentId) {
    return new ConclaveException(ErrorKind.ALREADY_EXISTS, "agent_exists", "agent '" + agentId + "' is already in the registry");
  }

  public static ConclaveException parentNotFound(String parentId) {
    return ConclaveException.notFound("parent_not_found", "no parent agent '" + parentId + "' in the registry");
  }

  // ---- the session protocol (seed 004, /api/v1/sessions) ----------------------------------------

  public static ConclaveException webSocketRequired(String path) {
    return ConclaveException.invalid("websocket_upgrade_required", "GET " + path + " is a WebSocket endpoint: open it as a WebSocket "
      + "(HTTP/1.1 with 'upgrade: websocket')");
  }

  public static ConclaveException badSubmission(String why) {
    return ConclaveException.invalid("submission_invalid", why);
  }

  public static ConclaveException unknownOp(String op) {
    return ConclaveException.invalid("op_unknown", "unknown op '" + op + "'; the session stays open");
  }

  public static ConclaveException unsupportedOp(String op) {
    return new ConclaveException(ErrorKind.UNSUPPORTED_MEDIA, "op_unsupported",
      "op '" + op + "' is a seed 004 extension that Conclave does not support (see docs/sessions.md)");
  }

  public static ConclaveException sessionNotConfigured(String op) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "session_not_configured",
      "op '" + op + "' needs a session: send configure_session first");
  }

  public static ConclaveException noTaskRunning() {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "no_task_running", "no task is running in this session");
  }

  public static ConclaveException noAgentMatches() {
    return ConclaveException.notFound("agent_not_found", "no agent you may act on matches the agent_query");
  }

  public static ConclaveException sessionNotYours(String sessionId) {
    return ConclaveException.denied("session " + sessionId + " belongs to another principal");
  }

  public static ConclaveException approvalRefused(String why) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "exec_approval_refused", why);
  }

  public static ConclaveException unknownResponseId(String responseId) {
    return ConclaveException.invalid("response_id_unknown", "last_response_id '" + responseId + "' is not a response of this session's conversation");
  }
}
