package dev.conclave.swarm.protocol;

import dev.conclave.platform.validation.TextRules;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;

import java.nio.charset.StandardCharsets;

/**
 * What the coordinator checks of a protocol request as every transport receives it, before the
 * database: the protocol version and the operation. Every other check of a request is its
 * operation's, in its SQL file ({@code R__swarm_op_<operation>.sql}), run by {@code swarm.dispatch}
 * in this order (ErrorOrderTest): the operation's sizes, formats and ranges ({@code swarm.check_<operation>}),
 * then the signed-agent check (a signed request acts only as its agent, 403; the signer comes in the
 * dispatch options), then the rate limit (429), then the operation's JSON types, required members and
 * enumerations, then its effect. Unknown members go to the database with the request; the operations
 * read only theirs and store only theirs.
 *
 * <p>Two checks stay in Java because SQL cannot make them ({@link #javaProblems}): a display name's
 * characters and a message payload's size. Their problems go to the database in the dispatch options,
 * and {@code swarm.check_<operation>} answers them at their place among the other checks.
 */
public final class ProtocolRequests {

  /** The options member that carries {@link #javaProblems} to {@code swarm.dispatch}. */
  public static final String JAVA_PROBLEMS = "javaProblems";

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

  /**
   * Checks the protocol version, and that a request naming an operation names {@code op}; returns
   * the request with {@code protocolVersion} and {@code operation} set.
   * These stay in Java: over HTTP the operation is where the request arrives, which only the
   * transport knows (a body naming another one is refused here, after its version), and the
   * answers' wording is the coordinator's ({@code swarm.dispatch} checks both again for direct
   * database callers, in its own words, which clients of the transports never see).
   */
  public static JsonObject validate(Operation op, JsonObject body) {
    checkVersion(body);
    Object operation = body.getValue("operation");
    if (operation != null && !op.name().equals(operation)) {
      throw SwarmErrors.invalidField("operation", "must be " + op.name() + " here, got '" + operation + "'");
    }
    return body.put("protocolVersion", Vocabulary.PROTOCOL_VERSION).put("operation", op.name());
  }

  /**
   * The problems of a request that SQL cannot see, by the member's path, or null when there are none;
   * {@code swarm.check_<operation>} answers each at the member's place among its checks:
   * <ul>
   *   <li>REGISTER's {@code agent.name}: platform's name rule ({@link TextRules#nameProblem}), which
   *   rejects characters by their Unicode category in Java's tables (unassigned, private use,
   *   formatting); PostgreSQL's regular expressions have no Unicode categories. Its length is the
   *   database's check.</li>
   *   <li>SEND_MESSAGE's {@code message.payload}: its size as Vert.x encodes it. The database sees the
   *   payload only as jsonb, whose text has its own spacing, number forms and member order.</li>
   * </ul>
   */
  public static JsonObject javaProblems(Operation op, JsonObject request) {
    if (op == Operation.REGISTER && request.getValue("agent") instanceof JsonObject agent
      && agent.getValue("name") instanceof String name && name.length() <= Limits.NAME) {
      return TextRules.nameProblem(name, Limits.NAME).map(why -> new JsonObject().put("agent.name", why)).orElse(null);
    }
    if (op == Operation.SEND_MESSAGE && request.getValue("message") instanceof JsonObject message) {
      Object payload = message.getValue("payload");
      if (payload != null && Json.encode(payload).getBytes(StandardCharsets.UTF_8).length > Limits.PAYLOAD_BYTES) {
        return new JsonObject().put("message.payload", "must encode to at most " + Limits.PAYLOAD_BYTES + " bytes");
      }
    }
    return null;
  }

  /**
   * The agent a request acts for, or null when it names none as a string: JSON types and
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
