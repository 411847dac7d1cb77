package dev.conclave.swarm.errors;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;

import java.util.Map;
import java.util.Set;

/**
 * Every error code of the swarm coordinator, defined once. The protocol's permanent errors keep the
 * spec's codes ({@code agent_not_registered}, {@code task_not_found}, {@code task_already_claimed},
 * {@code invalid_operation}); the rest name what went wrong. The {@link ErrorKind} decides the HTTP
 * status; errors the database functions return carry their kind with them.
 */
public final class SwarmErrors {

  public static final String AGENT_NOT_REGISTERED = "agent_not_registered";
  public static final String TASK_NOT_FOUND = "task_not_found";
  public static final String TASK_ALREADY_CLAIMED = "task_already_claimed";
  public static final String INVALID_OPERATION = "invalid_operation";
  public static final String UNSUPPORTED_PROTOCOL_VERSION = "unsupported_protocol_version";
  public static final String AGENT_ALREADY_REGISTERED = "agent_already_registered";
  public static final String AGENT_NOT_OWNED = "agent_not_owned";
  public static final String AGENT_MISMATCH = "agent_mismatch";
  public static final String RECIPIENT_NOT_REGISTERED = "recipient_not_registered";
  public static final String MESSAGE_NOT_FOUND = "message_not_found";
  public static final String LEASE_NOT_OWNED = "lease_not_owned";
  public static final String LEASE_CONTENDED = "lease_contended";
  public static final String TASK_ALREADY_EXISTS = "task_already_exists";
  /** A bulk action's filter matches more tasks than one transaction may change (swarm.bulk_tasks). */
  public static final String TOO_MANY_TASKS = "too_many_tasks";
  public static final String SCHEDULE_NOT_FOUND = "schedule_not_found";
  /** POST /api/v1/schedules with a name in use: schedules are never replaced, delete first. */
  public static final String SCHEDULE_ALREADY_EXISTS = "schedule_already_exists";
  public static final String RATE_LIMITED = "rate_limited";
  public static final String SIGNATURE_INVALID = "signature_invalid";
  public static final String SIGNATURE_EXPIRED = "signature_expired";
  public static final String SIGNATURE_REPLAYED = "signature_replayed";
  public static final String BEARER_REQUIRED = "bearer_required";
  public static final String OVERLOADED = "overloaded";
  public static final String OUTCOME_UNKNOWN = "outcome_unknown";
  /** No gateway node took a task's conversation (platform.swarm.TaskConversationOps raises it). */
  public static final String GATEWAY_UNAVAILABLE = "gateway_unavailable";

  /** Every code, with the kind it has wherever it is raised. */
  private static final Map<String, ErrorKind> KINDS = Map.ofEntries(
    Map.entry(AGENT_NOT_REGISTERED, ErrorKind.NOT_FOUND),
    Map.entry(TASK_NOT_FOUND, ErrorKind.NOT_FOUND),
    Map.entry(TASK_ALREADY_CLAIMED, ErrorKind.CONFLICT),
    // bad input is INVALID_ARGUMENT; an operation the task's state does not allow is CONFLICT
    Map.entry(INVALID_OPERATION, ErrorKind.INVALID_ARGUMENT),
    Map.entry(UNSUPPORTED_PROTOCOL_VERSION, ErrorKind.INVALID_ARGUMENT),
    Map.entry(AGENT_ALREADY_REGISTERED, ErrorKind.CONFLICT),
    Map.entry(AGENT_NOT_OWNED, ErrorKind.PERMISSION_DENIED),
    Map.entry(AGENT_MISMATCH, ErrorKind.PERMISSION_DENIED),
    Map.entry(RECIPIENT_NOT_REGISTERED, ErrorKind.NOT_FOUND),
    Map.entry(MESSAGE_NOT_FOUND, ErrorKind.NOT_FOUND),
    Map.entry(LEASE_NOT_OWNED, ErrorKind.PERMISSION_DENIED),
    Map.entry(LEASE_CONTENDED, ErrorKind.CONFLICT),
    Map.entry(TASK_ALREADY_EXISTS, ErrorKind.CONFLICT),
    Map.entry(TOO_MANY_TASKS, ErrorKind.CONFLICT),
    Map.entry(SCHEDULE_NOT_FOUND, ErrorKind.NOT_FOUND),
    Map.entry(SCHEDULE_ALREADY_EXISTS, ErrorKind.CONFLICT),
    Map.entry(RATE_LIMITED, ErrorKind.RATE_LIMITED),
    Map.entry(SIGNATURE_INVALID, ErrorKind.UNAUTHENTICATED),
    Map.entry(SIGNATURE_EXPIRED, ErrorKind.UNAUTHENTICATED),
    Map.entry(SIGNATURE_REPLAYED, ErrorKind.UNAUTHENTICATED),
    Map.entry(BEARER_REQUIRED, ErrorKind.UNAUTHENTICATED),
    Map.entry(OVERLOADED, ErrorKind.UNAVAILABLE),
    Map.entry(OUTCOME_UNKNOWN, ErrorKind.UNAVAILABLE),
    Map.entry(GATEWAY_UNAVAILABLE, ErrorKind.UNAVAILABLE));

  /** The kinds the database functions name (see swarm._err). */
  private static final Map<String, ErrorKind> DB_KINDS = Map.of(
    "invalid", ErrorKind.INVALID_ARGUMENT,
    "unauthenticated", ErrorKind.UNAUTHENTICATED,
    "forbidden", ErrorKind.PERMISSION_DENIED,
    "not_found", ErrorKind.NOT_FOUND,
    "conflict", ErrorKind.CONFLICT,
    "rate_limited", ErrorKind.RATE_LIMITED);

  private SwarmErrors() {
  }

  public static Set<String> codes() {
    return KINDS.keySet();
  }

  /** A request field that is missing or wrong: 400, naming the field. */
  public static SwarmProblem invalidField(String field, String problem) {
    return new SwarmProblem(ErrorKind.INVALID_ARGUMENT, INVALID_OPERATION, field + " " + problem,
      new JsonObject().put("field", field));
  }

  public static SwarmProblem taskNotFound(String taskId) {
    return new SwarmProblem(ErrorKind.NOT_FOUND, TASK_NOT_FOUND, "no task with id " + taskId, null);
  }

  public static SwarmProblem scheduleNotFound(String name) {
    return new SwarmProblem(ErrorKind.NOT_FOUND, SCHEDULE_NOT_FOUND, "no schedule named " + name, null);
  }

  public static SwarmProblem scheduleAlreadyExists(String name) {
    return new SwarmProblem(ErrorKind.CONFLICT, SCHEDULE_ALREADY_EXISTS,
      "a schedule named " + name + " exists already; delete it first to change it", new JsonObject().put("field", "name"));
  }

  public static SwarmProblem agentNotRegistered(String agentId) {
    return new SwarmProblem(ErrorKind.NOT_FOUND, AGENT_NOT_REGISTERED, "agent " + agentId + " is not registered", null);
  }

  public static SwarmProblem unsupportedVersion(Object given) {
    return new SwarmProblem(ErrorKind.INVALID_ARGUMENT, UNSUPPORTED_PROTOCOL_VERSION,
      "protocolVersion " + (given == null ? "(missing)" : "'" + given + "'") + " is not supported; this coordinator speaks \"1.0\"",
      new JsonObject().put("field", "protocolVersion"));
  }

  /**
   * A signed request acting for another agent (a task's conversation; the protocol's operations get
   * the same answer from swarm.dispatch, swarm._signer_error, which ChecksInSqlTest holds to this one).
   */
  public static SwarmProblem agentMismatch(String signedAgent, String requested) {
    return new SwarmProblem(ErrorKind.PERMISSION_DENIED, AGENT_MISMATCH,
      "the request is signed by agent " + signedAgent + " but acts for agent " + requested + "; a signed agent acts only as itself",
      new JsonObject().put("field", "agentId"));
  }

  public static SwarmProblem signatureInvalid(String why) {
    return new SwarmProblem(ErrorKind.UNAUTHENTICATED, SIGNATURE_INVALID, "the request signature is not valid: " + why, null);
  }

  public static SwarmProblem signatureExpired(long windowSeconds) {
    return new SwarmProblem(ErrorKind.UNAUTHENTICATED, SIGNATURE_EXPIRED,
      "the signed timestamp is more than " + windowSeconds + " s away from the coordinator's clock", null);
  }

  public static ConclaveException signerRevoked(String agentId) {
    return new ConclaveException(ErrorKind.UNAUTHENTICATED, "signer_revoked",
      "the principal that registered agent " + agentId + " was deleted or revoked; its signatures are no longer accepted");
  }

  public static SwarmProblem signatureReplayed() {
    return new SwarmProblem(ErrorKind.UNAUTHENTICATED, SIGNATURE_REPLAYED,
      "this signature was used before; sign every request afresh (a new timestamp)", null);
  }

  public static SwarmProblem overloaded() {
    return new SwarmProblem(ErrorKind.UNAVAILABLE, OVERLOADED, "the coordinator has too many requests queued; retry shortly", null);
  }

  public static SwarmProblem outcomeUnknown() {
    return new SwarmProblem(ErrorKind.UNAVAILABLE, OUTCOME_UNKNOWN,
      "the coordinator that took this request stopped before answering; whether it took effect is unknown", null);
  }

  /** An error result of a database function: {@code {code, kind, message, ...extensions}}. */
  /** The problem as the swarm functions write an error ({@link #fromDatabase} reads it back unchanged). */
  public static JsonObject toDatabase(SwarmProblem problem) {
    String kind = DB_KINDS.entrySet().stream().filter(k -> k.getValue() == problem.kind()).map(Map.Entry::getKey)
      .findFirst().orElse("invalid");
    return problem.extensions().put("code", problem.code()).put("kind", kind).put("message", problem.detail());
  }

  public static SwarmProblem fromDatabase(JsonObject error) {
    String code = error.getString("code", "internal");
    ErrorKind kind = DB_KINDS.getOrDefault(error.getString("kind"), KINDS.getOrDefault(code, ErrorKind.INTERNAL));
    JsonObject extensions = error.copy();
    extensions.remove("code");
    extensions.remove("kind");
    extensions.remove("message");
    return new SwarmProblem(kind, code, error.getString("message", code), extensions);
  }

  /**
   * The failure of a database call: an error a swarm function raised (SQLSTATE SWxxx, the error as
   * JSON in its detail) becomes that problem; anything else is left for the platform to classify.
   */
  public static Throwable fromSql(Throwable failure) {
    if (failure instanceof PgException pg && pg.getSqlState() != null && pg.getSqlState().startsWith("SW") && pg.getDetail() != null) {
      try {
        return fromDatabase(new JsonObject(pg.getDetail()));
      } catch (DecodeException e) {
        // not the JSON a swarm function writes: a server fault, classified (and logged) as such
        return failure;
      }
    }
    return failure;
  }
}
