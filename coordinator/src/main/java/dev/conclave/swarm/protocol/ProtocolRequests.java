package dev.conclave.swarm.protocol;

import dev.conclave.swarm.agents.AgentRequests;
import dev.conclave.swarm.claims.ClaimRequests;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.errors.SwarmProblem;
import dev.conclave.swarm.leases.LeaseRequests;
import dev.conclave.swarm.messages.MessageRequests;
import dev.conclave.swarm.retries.FailureReports;
import dev.conclave.swarm.tasks.WorkReports;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.JsonObject;

/**
 * Checks a protocol request as every transport receives it: the protocol version, the operation,
 * and what the database functions do not check of the operation's members (sizes, id formats,
 * ranges; JSON types, required members and enumerations are checked once, by the swarm.op_*
 * functions). Returns the request normalized (unknown members dropped) with {@code protocolVersion}
 * and {@code operation} set.
 *
 * <p>Why these checks stay in Java (ErrorOrderTest pins it): they answer before the checks that sit
 * between them and the database, the signed-agent check ({@code SignedAgent.requireSelf}: a signed
 * request acts only as its agent, 403) and the rate limit ({@code swarm.dispatch}, 429), which in turn
 * answer before the operation's own checks in {@code swarm.op_*}. Moved into the operation's SQL, a
 * size, format or range fault would answer after them, and a request with both faults would get 403
 * or 429 where it gets 400 today. Moving them needs the signed-agent check in SQL first (the signer
 * passed in the options, checked by {@code swarm.dispatch} after the operation's size checks and
 * before the rate limit).
 */
public final class ProtocolRequests {

  private ProtocolRequests() {
  }

  /** The operation a request names in its {@code operation} member (the file transport's way). */
  public static Operation operationOf(JsonObject body) {
    checkVersion(body);
    Object operation = body.getValue("operation");
    if (operation == null) {
      throw SwarmErrors.invalidField("operation", "is required");
    }
    return Operation.of(String.valueOf(operation)).orElseThrow(() -> SwarmErrors.invalidField("operation",
      "must be one of REGISTER, HEARTBEAT, CLAIM, PROGRESS, COMPLETE, FAIL, SEND_MESSAGE, RECEIVE_MESSAGES, "
        + "ACQUIRE_LEASE, RELEASE_LEASE, ACK_MESSAGE, got '" + operation + "'"));
  }

  /** Validates a request for {@code op}; a request that names another operation is rejected. */
  public static JsonObject validate(Operation op, JsonObject body) {
    checkVersion(body);
    Object operation = body.getValue("operation");
    if (operation != null && !op.name().equals(operation)) {
      throw SwarmErrors.invalidField("operation", "must be " + op.name() + " here, got '" + operation + "'");
    }
    JsonFields fields = JsonFields.of(body);
    JsonObject normalized;
    try {
      normalized = members(op, fields);
    } catch (SwarmProblem invalid) {
      if (op != Operation.ACQUIRE_LEASE) {
        throw invalid;
      }
      // seed 001: a file another agent holds is refused with heldBy/heldUntil whatever else is wrong
      // with the request, so the database looks at the lease before it answers with this problem
      normalized = LeaseRequests.acquireDeferring(fields, invalid);
    }
    return normalized.put("protocolVersion", Vocabulary.PROTOCOL_VERSION).put("operation", op.name());
  }

  private static JsonObject members(Operation op, JsonFields fields) {
    return switch (op) {
      case REGISTER -> AgentRequests.register(fields);
      case HEARTBEAT -> AgentRequests.heartbeat(fields);
      case CLAIM -> ClaimRequests.claim(fields);
      case PROGRESS -> WorkReports.progress(fields);
      case COMPLETE -> WorkReports.complete(fields);
      case FAIL -> FailureReports.fail(fields);
      case SEND_MESSAGE -> MessageRequests.send(fields);
      case RECEIVE_MESSAGES -> MessageRequests.receive(fields);
      case ACQUIRE_LEASE -> LeaseRequests.acquire(fields);
      case RELEASE_LEASE -> LeaseRequests.release(fields);
      case ACK_MESSAGE -> MessageRequests.ack(fields);
    };
  }

  /**
   * The agent a (validated) request acts for, or null when it names none as a string: JSON types and
   * required members are the database's checks, so such a request is rejected there.
   */
  public static String agentId(Operation op, JsonObject request) {
    Object holder = op == Operation.REGISTER ? request.getValue("agent") : request;
    Object id = holder instanceof JsonObject json ? json.getValue(op == Operation.REGISTER ? "id" : "agentId") : null;
    return id instanceof String text ? text : null;
  }

  private static void checkVersion(JsonObject body) {
    Object version = body.getValue("protocolVersion");
    if (!Vocabulary.PROTOCOL_VERSION.equals(version)) {
      throw SwarmErrors.unsupportedVersion(version);
    }
  }
}
