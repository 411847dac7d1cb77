package dev.conclave.swarm.validation;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.swarm.protocol.Operation;
import dev.conclave.swarm.protocol.ProtocolRequests;
import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * Request validation is written once: JSON types and required members are checked by the database
 * functions (swarm.op_*), which HTTP and direct database callers both reach. For every operation, a
 * member of the wrong JSON type and a missing required member pass the Java checks
 * ({@link ProtocolRequests#validate} does not throw) and the operation's first checks (sizes, formats,
 * ranges: swarm.check_&lt;operation&gt;, which run before the signed-agent check and the rate limit), and
 * get the same 400 over HTTP as the error {@code swarm.execute} raises: same code, same field, same message.
 */
class ValidationOnceTest {

  private static final String MESSAGE_ID = "0b7e2f6a-3c1d-4e5f-8a9b-0c1d2e3f4a5b";

  private static SwarmNode swarm;
  private static SwarmApi api;
  private static Connection db;

  /** A request (without protocolVersion/operation), where HTTP takes it (null: no HTTP form), and the answer expected. */
  private record Case(Operation op, String path, JsonObject request, String field, String problem) {
  }

  @BeforeAll
  static void start() throws SQLException {
    swarm = SwarmNode.start();
    api = swarm.api();
    PgUrl url = swarm.database();
    db = DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
  }

  @AfterAll
  static void stop() throws SQLException {
    db.close();
    swarm.close();
  }

  private static JsonObject agent() {
    return SwarmApi.agentSpec("once-agent", List.of("java"));
  }

  private static JsonObject progress() {
    return new JsonObject().put("phase", "implementing").put("percentComplete", 50).put("description", "half way");
  }

  private static JsonObject failure() {
    return new JsonObject().put("type", "task_error").put("message", "broke").put("recoverable", true);
  }

  private static JsonObject lease() {
    return new JsonObject().put("agentId", "once-a").put("taskId", "once-t").put("filePath", "src/once.ts").put("durationMs", 1000);
  }

  private static JsonObject without(JsonObject json, String key) {
    JsonObject copy = json.copy();
    copy.remove(key);
    return copy;
  }

  private static List<Case> cases() {
    JsonObject typedAgent = agent().put("type", 7);
    return List.of(
      new Case(Operation.REGISTER, "/api/v1/agents/register", new JsonObject().put("agent", typedAgent), "agent.type", "must be a string"),
      new Case(Operation.REGISTER, "/api/v1/agents/register", new JsonObject().put("agent", without(agent(), "name")), "agent.name", "is required"),
      new Case(Operation.HEARTBEAT, "/api/v1/agents/once-a/heartbeat", new JsonObject().put("agentId", "once-a").put("status", 3),
        "status", "must be a string"),
      new Case(Operation.HEARTBEAT, "/api/v1/agents/once-a/heartbeat", new JsonObject().put("agentId", "once-a"), "status", "is required"),
      new Case(Operation.CLAIM, "/api/v1/tasks/claim", new JsonObject().put("agentId", 17), "agentId", "must be a string"),
      new Case(Operation.CLAIM, "/api/v1/tasks/claim", new JsonObject().put("filter", new JsonObject()), "agentId", "is required"),
      new Case(Operation.PROGRESS, "/api/v1/tasks/once-t/progress", new JsonObject().put("agentId", "once-a").put("taskId", "once-t")
        .put("progress", progress().put("percentComplete", "half")), "progress.percentComplete", "must be a number"),
      new Case(Operation.PROGRESS, "/api/v1/tasks/once-t/progress", new JsonObject().put("agentId", "once-a").put("taskId", "once-t")
        .put("progress", without(progress(), "description")), "progress.description", "is required"),
      new Case(Operation.COMPLETE, "/api/v1/tasks/once-t/complete", new JsonObject().put("agentId", "once-a").put("taskId", "once-t")
        .put("result", new JsonObject().put("summary", 5)), "result.summary", "must be a string"),
      new Case(Operation.COMPLETE, "/api/v1/tasks/once-t/complete", new JsonObject().put("agentId", "once-a").put("taskId", "once-t"),
        "result", "is required"),
      new Case(Operation.FAIL, "/api/v1/tasks/once-t/fail", new JsonObject().put("agentId", "once-a").put("taskId", "once-t")
        .put("failure", failure().put("recoverable", "yes")), "failure.recoverable", "must be true or false"),
      new Case(Operation.FAIL, "/api/v1/tasks/once-t/fail", new JsonObject().put("agentId", "once-a").put("taskId", "once-t")
        .put("failure", without(failure(), "type")), "failure.type", "is required"),
      new Case(Operation.SEND_MESSAGE, "/api/v1/messages", new JsonObject().put("agentId", "once-a")
        .put("message", new JsonObject().put("to", 5).put("type", "custom")), "message.to", "must be a string"),
      new Case(Operation.SEND_MESSAGE, "/api/v1/messages", new JsonObject().put("agentId", "once-a")
        .put("message", new JsonObject().put("payload", "hi")), "message.type", "is required"),
      // (over HTTP RECEIVE_MESSAGES is a query string: every member arrives as text)
      new Case(Operation.RECEIVE_MESSAGES, null, new JsonObject().put("agentId", "once-a").put("types", "custom"), "types",
        "must be an array of strings"),
      new Case(Operation.RECEIVE_MESSAGES, "/api/v1/messages?protocolVersion=1.0", new JsonObject(), "agentId", "is required"),
      new Case(Operation.ACK_MESSAGE, "/api/v1/messages/" + MESSAGE_ID + "/ack", new JsonObject().put("agentId", true).put("messageId", MESSAGE_ID),
        "agentId", "must be a string"),
      new Case(Operation.ACK_MESSAGE, "/api/v1/messages/" + MESSAGE_ID + "/ack", new JsonObject().put("messageId", MESSAGE_ID), "agentId",
        "is required"),
      new Case(Operation.ACQUIRE_LEASE, "/api/v1/leases/acquire", lease().put("durationMs", "soon"), "durationMs", "must be a number"),
      new Case(Operation.ACQUIRE_LEASE, "/api/v1/leases/acquire", without(lease(), "taskId"), "taskId", "is required"),
      new Case(Operation.RELEASE_LEASE, "/api/v1/leases/release", new JsonObject().put("agentId", "once-a").put("filePath", 5),
        "filePath", "must be a string"),
      new Case(Operation.RELEASE_LEASE, "/api/v1/leases/release", new JsonObject().put("filePath", "src/once.ts"), "agentId", "is required"));
  }

  @Test
  void typesAndRequiredMembersAreCheckedOnceInTheDatabaseForEveryTransport() {
    Set<Operation> covered = EnumSet.noneOf(Operation.class);
    for (Case c : cases()) {
      covered.add(c.op());
      JsonObject request = v1().mergeIn(c.request().copy());
      String expected = c.field() + " " + c.problem();

      // Java passes it on: the check is not written there
      assertThatCode(() -> ProtocolRequests.validate(c.op(), request.copy())).as("Java on %s", c).doesNotThrowAnyException();
      // nor in the operation's first checks
      assertThat(firstCheck(c.op(), request.copy())).as("swarm.check_* on %s", c).isNull();

      // the database raises it for a direct caller
      JsonObject error = executeError(request.copy().put("operation", c.op().name()));
      assertThat(error.getString("code")).as("%s", c).isEqualTo("invalid_operation");
      assertThat(error.getString("field")).as("%s", c).isEqualTo(c.field());
      assertThat(error.getString("message")).as("%s", c).isEqualTo(expected);

      // and the same answer over HTTP
      if (c.path() != null) {
        Reply reply = c.op() == Operation.RECEIVE_MESSAGES ? api.get(c.path()) : api.post(c.path(), request.copy());
        assertThat(reply.status()).as("%s -> %s", c, reply).isEqualTo(400);
        assertThat(reply.json().getString("code")).as("%s", c).isEqualTo("invalid_operation");
        assertThat(reply.json().getString("field")).as("%s", c).isEqualTo(c.field());
        assertThat(reply.json().getString("detail")).as("%s", c).isEqualTo(expected);
      }
    }
    assertThat(covered).isEqualTo(EnumSet.allOf(Operation.class));
  }

  /** The sizes, formats and ranges, which answer first, moved from Java to swarm.check_&lt;operation&gt;: asked there. */
  @Test
  void theFirstChecksAreOnlySizesFormatsAndRanges() {
    JsonArray tooMany = new JsonArray();
    for (int i = 0; i <= Limits.SKILLS; i++) {
      tooMany.add("s" + i);
    }
    JsonObject agent = agent();
    agent.getJsonObject("capabilities").put("skills", tooMany);
    assertThat(javaField(Operation.REGISTER, new JsonObject().put("agent", agent))).isEqualTo("agent.capabilities.skills");
    assertThat(javaField(Operation.CLAIM, new JsonObject().put("agentId", "bad id!"))).isEqualTo("agentId");
    assertThat(javaField(Operation.PROGRESS, new JsonObject().put("agentId", "once-a").put("taskId", "once-t")
      .put("progress", progress().put("percentComplete", 101)))).isEqualTo("progress.percentComplete");
  }

  private static String javaField(Operation op, JsonObject request) {
    JsonObject error = firstCheck(op, ProtocolRequests.validate(op, v1().mergeIn(request)));
    if (error == null) {
      throw new AssertionError("swarm.check accepted " + request);
    }
    return error.getJsonObject("error").getString("field");
  }

  /** What the operation's first checks (swarm.check, which runs swarm.check_&lt;operation&gt;) answer, or null when they pass. */
  private static JsonObject firstCheck(Operation op, JsonObject request) {
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.check(?, ?::jsonb)")) {
      st.setString(1, op.name());
      st.setString(2, request.encode());
      try (java.sql.ResultSet rs = st.executeQuery()) {
        rs.next();
        String text = rs.getString(1);
        return text == null ? null : new JsonObject(text);
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  private static JsonObject executeError(JsonObject request) {
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.execute(?::jsonb)")) {
      st.setString(1, request.encode());
      st.executeQuery().close();
    } catch (PSQLException e) {
      assertThat(e.getSQLState()).as("%s", request).isEqualTo("SW400");
      return new JsonObject(e.getServerErrorMessage().getDetail());
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("swarm.execute accepted " + request);
  }
}
