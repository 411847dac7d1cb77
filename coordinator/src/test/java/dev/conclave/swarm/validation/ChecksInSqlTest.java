package dev.conclave.swarm.validation;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each operation's first checks (sizes, id formats, ranges) are its SQL's (swarm.check_&lt;operation&gt;),
 * run by swarm.dispatch before the signed-agent check, which is swarm.dispatch's too (the signer in
 * the options), and the rate limit. So direct database callers and batches get them as HTTP clients
 * do; lengths count as the protocol's limits were written (UTF-16 code units); and what is stored of
 * a request is still only its operation's members.
 */
class ChecksInSqlTest {

  private static SwarmNode swarm;
  private static SwarmApi api;
  private static SwarmApi member;
  private static Connection db;

  @BeforeAll
  static void start() throws SQLException {
    swarm = SwarmNode.start();
    api = swarm.api();
    member = api.as(swarm.memberToken("checks-member"));
    db = swarm.jdbc();
  }

  @AfterAll
  static void stop() throws SQLException {
    db.close();
    member.close();
    swarm.close();
  }

  private static String id(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static JsonObject query(String sql, String... args) throws SQLException {
    try (PreparedStatement st = db.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        st.setString(i + 1, args[i]);
      }
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        String text = rs.getString(1);
        return text == null ? null : new JsonObject(text);
      }
    }
  }

  private static JsonObject executeError(JsonObject request) {
    try {
      query("SELECT swarm.execute(?::jsonb)", request.encode());
    } catch (PSQLException e) {
      return new JsonObject(e.getServerErrorMessage().getDetail()).put("sqlState", e.getSQLState());
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    throw new AssertionError("swarm.execute accepted " + request);
  }

  private static void assertInvalid(JsonObject error, String field, String problem) {
    assertThat(error).as("%s", error).isNotNull();
    assertThat(error.getString("code")).as("%s", error).isEqualTo("invalid_operation");
    assertThat(error.getString("kind")).as("%s", error).isEqualTo("invalid");
    assertThat(error.getString("field")).as("%s", error).isEqualTo(field);
    assertThat(error.getString("message")).as("%s", error).isEqualTo(field + " " + problem);
  }

  @Test
  void directDatabaseCallersGetTheFirstChecksToo() {
    JsonObject claim = executeError(v1().put("operation", "CLAIM").put("agentId", "bad id!"));
    assertThat(claim.getString("sqlState")).isEqualTo("SW400");
    assertInvalid(claim, "agentId", Limits.ID_RULE);

    JsonObject progress = executeError(v1().put("operation", "PROGRESS").put("agentId", "a").put("taskId", "t")
      .put("progress", new JsonObject().put("phase", "testing").put("percentComplete", 101).put("description", "d")));
    assertInvalid(progress, "progress.percentComplete", "must be between 0 and 100");

    JsonObject lease = executeError(v1().put("operation", "RELEASE_LEASE").put("agentId", "a")
      .put("filePath", "x".repeat(Limits.PATH + 1)));
    assertInvalid(lease, "filePath", "must be at most " + Limits.PATH + " characters");
  }

  @Test
  void theSignerInTheOptionsAnswersAfterTheFirstChecksAndBeforeTheRateLimit() throws SQLException {
    db.setAutoCommit(false);
    try {
      String limited = "{\"signer\": \"checks-a\", \"rate\": {\"bucket\": \"checks|" + UUID.randomUUID() + "\", \"limit\": 0}}";
      JsonObject other = query("SELECT swarm.dispatch(?::jsonb, now(), NULL, ?::jsonb) -> 'error'",
        v1().put("operation", "HEARTBEAT").put("agentId", "checks-b").put("status", "idle").encode(), limited);
      assertThat(other.getString("code")).isEqualTo("agent_mismatch");
      assertThat(other.getString("kind")).isEqualTo("forbidden");
      assertThat(other.getString("field")).isEqualTo("agentId");
      assertThat(other.getString("message")).as("the words of SwarmErrors.agentMismatch, which other routes answer with")
        .isEqualTo(SwarmErrors.agentMismatch("checks-a", "checks-b").detail());

      JsonObject sized = query("SELECT swarm.dispatch(?::jsonb, now(), NULL, ?::jsonb) -> 'error'",
        v1().put("operation", "HEARTBEAT").put("agentId", "checks-b").put("status", "idle")
          .put("currentTask", new JsonObject().put("id", "t").put("progress", 101)).encode(), limited);
      assertInvalid(sized, "currentTask.progress", "must be between 0 and 100");

      JsonObject self = query("SELECT swarm.dispatch(?::jsonb, now(), NULL, ?::jsonb) -> 'error'",
        v1().put("operation", "HEARTBEAT").put("agentId", "checks-a").put("status", 3).encode(), limited);
      assertThat(self.getString("code")).isEqualTo("rate_limited");

      JsonObject register = query("SELECT swarm.dispatch(?::jsonb, now(), NULL, ?::jsonb) -> 'error'",
        v1().put("operation", "REGISTER").put("agent", SwarmApi.agentSpec("checks-a", List.of("java"))).encode(), limited);
      assertThat(register.getString("code")).isEqualTo("bearer_required");
      assertThat(register.getString("kind")).isEqualTo("unauthenticated");
    } finally {
      db.rollback();
      db.setAutoCommit(true);
    }
  }

  @Test
  void aBatchAnswersAFirstCheckAsASingleRequestDoes() throws SQLException {
    String agent = id("checks-batch");
    assertThat(api.register(agent, List.of("java")).status()).isEqualTo(200);
    JsonArray items = new JsonArray()
      .add(new JsonObject().put("request", v1().put("operation", "CLAIM").put("agentId", "bad id!")))
      .add(new JsonObject().put("request", v1().put("operation", "COMPLETE").put("agentId", agent).put("taskId", "checks-t")
        .put("result", new JsonObject().put("summary", "x".repeat(Limits.TEXT + 1)))));
    db.setAutoCommit(false);
    try {
      JsonObject batch = query("SELECT swarm.dispatch_batch(?::jsonb)", items.encode());
      JsonArray results = batch.getJsonArray("results");
      assertInvalid(results.getJsonObject(0).getJsonObject("error"), "agentId", Limits.ID_RULE);
      assertInvalid(results.getJsonObject(1).getJsonObject("error"), "result.summary",
        "must be at most " + Limits.TEXT + " characters");
    } finally {
      db.rollback();
      db.setAutoCommit(true);
    }
  }

  @Test
  void lengthsCountUtf16CodeUnitsAndBlankIsJavasWhitespace() throws SQLException {
    String grin = new String(Character.toChars(0x1F600));
    JsonObject fits = new JsonObject().put("agentId", "a").put("taskId", "t")
      .put("progress", new JsonObject().put("description", grin.repeat(Limits.SHORT_TEXT / 2)));
    assertThat(query("SELECT swarm.check('PROGRESS', ?::jsonb)", fits.encode())).isNull();
    JsonObject over = new JsonObject().put("agentId", "a").put("taskId", "t")
      .put("progress", new JsonObject().put("description", grin.repeat(Limits.SHORT_TEXT / 2) + "x"));
    assertInvalid(query("SELECT swarm.check('PROGRESS', ?::jsonb) -> 'error'", over.encode()), "progress.description",
      "must be at most " + Limits.SHORT_TEXT + " characters");

    JsonObject blank = new JsonObject().put("agentId", "a").put("taskId", "t")
      .put("progress", new JsonObject().put("filesModified", new JsonArray().add("src/a.ts").add(" \u2003\t")));
    assertInvalid(query("SELECT swarm.check('PROGRESS', ?::jsonb) -> 'error'", blank.encode()), "progress.filesModified[1]",
      "must not be blank");
    JsonObject nbsp = new JsonObject().put("agentId", "a").put("taskId", "t")
      .put("progress", new JsonObject().put("filesModified", new JsonArray().add("\u00a0")));
    assertThat(query("SELECT swarm.check('PROGRESS', ?::jsonb)", nbsp.encode())).as("U+00A0 is no whitespace to Java").isNull();
  }

  @Test
  void anIdIsWhatLimitsIdMatches() throws SQLException {
    for (String id : List.of("a".repeat(Limits.ID_LENGTH), "a".repeat(Limits.ID_LENGTH + 1), "agent-1", "agent-1\n", "-agent",
      "agent.1:x@y_z", "ägent", "agent 1", "")) {
      JsonObject error = query("SELECT swarm.check('CLAIM', ?::jsonb)", new JsonObject().put("agentId", id).encode());
      assertThat(error == null).as("'%s' passes", id).isEqualTo(Limits.ID.matcher(id).matches());
    }
  }

  @Test
  void whatIsStoredIsStillOnlyTheOperationsMembers() {
    String agent = id("checks-store");
    String skill = "checks-" + agent;
    JsonObject spec = SwarmApi.agentSpec(agent, List.of(skill));
    spec.getJsonObject("machine").put("os", "plan9");
    assertThat(api.post("/api/v1/agents/register", v1().put("agent", spec)).status()).isEqualTo(200);
    assertThat(api.post("/api/v1/agents/" + agent + "/heartbeat", v1().put("agentId", agent).put("status", "idle")
      .put("metrics", new JsonObject().put("memoryUsedMB", 5).put("tasksCompletedSession", null).put("cpu", 9))).status())
      .isEqualTo(200);
    JsonObject stored = api.get("/api/v1/agents/" + agent).json();
    assertThat(stored.getJsonObject("machine")).isEqualTo(new JsonObject().put("id", "m1").put("hostname", "localhost").put("pid", 4242));
    assertThat(stored.getJsonObject("metrics")).isEqualTo(new JsonObject().put("memoryUsedMB", 5));

    String task = "checks-task-" + agent;
    assertThat(api.createTasks(new JsonArray().add(new JsonObject().put("id", task).put("title", "store")
      .put("requiredSkills", new JsonArray().add(skill)))).status()).isEqualTo(201);
    assertThat(api.claim(agent).json().getJsonObject("task").getString("id")).isEqualTo(task);
    // a deferredError is the coordinator's own member: one sent by a client is not answered
    Reply lease = api.post("/api/v1/leases/acquire", v1().put("agentId", agent).put("taskId", task).put("filePath", "src/checks.ts")
      .put("durationMs", 1000).put("deferredError", new JsonObject().put("code", "forged").put("kind", "invalid").put("message", "forged")));
    assertThat(lease.status()).as(lease.toString()).isEqualTo(200);
    assertThat(lease.json().getBoolean("success")).isTrue();
    Reply complete = api.post("/api/v1/tasks/" + task + "/complete", v1().put("agentId", agent)
      .put("result", new JsonObject().put("summary", "stored").put("filesModified", null).put("extra", 1)).put("extra", 2));
    assertThat(complete.status()).as(complete.toString()).isEqualTo(200);
    assertThat(api.task(task).getJsonObject("result")).isEqualTo(new JsonObject().put("filesCreated", new JsonArray())
      .put("filesModified", new JsonArray()).put("filesDeleted", new JsonArray()).put("summary", "stored"));
  }

  @Test
  void aSignedRegisterAnswersASizeFaultFirstThenThatItNeedsABearerToken() throws Exception {
    String signer = id("checks-signer");
    String secret = member.register(signer, List.of("java")).json().getString("agentSecret");
    Instant at = swarm.clock().instant();
    JsonObject longName = SwarmApi.agentSpec(id("checks-reg"), List.of("java")).put("name", "n".repeat(Limits.NAME + 1));
    Reply sized = signed(signer, secret, "/api/v1/agents/register", v1().put("agent", longName), at);
    assertThat(sized.status()).as(sized.toString()).isEqualTo(400);
    assertThat(sized.json().getString("field")).isEqualTo("agent.name");

    Reply bearer = signed(signer, secret, "/api/v1/agents/register",
      v1().put("agent", SwarmApi.agentSpec(id("checks-reg"), List.of("java"))), at.plusMillis(1));
    assertThat(bearer.status()).as(bearer.toString()).isEqualTo(401);
    assertThat(bearer.code()).isEqualTo("bearer_required");
    assertThat(bearer.json().getString("detail"))
      .isEqualTo("REGISTER needs a bearer token; HMAC signing starts with the secret REGISTER returns");
  }

  /** What only Java can see (a name's characters, a payload's encoded size) answers at its place among the SQL's checks. */
  @Test
  void javasProblemsAnswerAtTheirPlaceAmongTheFirstChecks() {
    JsonArray tooMany = new JsonArray();
    for (int i = 0; i <= Limits.SKILLS; i++) {
      tooMany.add("s" + i);
    }
    String hidden = "agent\u202e name";
    JsonObject badIdHiddenName = SwarmApi.agentSpec("bad id!", List.of("java")).put("name", hidden);
    Reply first = api.post("/api/v1/agents/register", v1().put("agent", badIdHiddenName));
    assertThat(first.status()).as(first.toString()).isEqualTo(400);
    assertThat(first.json().getString("field")).isEqualTo("agent.id");
    JsonObject hiddenNameTooManySkills = SwarmApi.agentSpec(id("checks-name"), List.of("java")).put("name", hidden);
    hiddenNameTooManySkills.getJsonObject("capabilities").put("skills", tooMany);
    Reply name = api.post("/api/v1/agents/register", v1().put("agent", hiddenNameTooManySkills));
    assertThat(name.status()).as(name.toString()).isEqualTo(400);
    assertThat(name.json().getString("field")).isEqualTo("agent.name");

    String big = "x".repeat(Limits.PAYLOAD_BYTES);
    Reply agentFirst = api.post("/api/v1/messages", v1().put("agentId", "bad id!")
      .put("message", new JsonObject().put("to", "bad to!").put("type", "custom").put("payload", big)));
    assertThat(agentFirst.status()).as(agentFirst.toString()).isEqualTo(400);
    assertThat(agentFirst.json().getString("field")).isEqualTo("agentId");
    Reply payload = api.post("/api/v1/messages", v1().put("agentId", "checks-a")
      .put("message", new JsonObject().put("to", "bad to!").put("type", "custom").put("payload", big)));
    assertThat(payload.status()).as(payload.toString()).isEqualTo(400);
    assertThat(payload.json().getString("field")).isEqualTo("message.payload");
    assertThat(payload.json().getString("detail")).isEqualTo("message.payload must encode to at most " + Limits.PAYLOAD_BYTES + " bytes");
  }

  private static Reply signed(String agent, String secret, String target, JsonObject body, Instant at) {
    return api.signed(agent, secret, HttpMethod.POST, target, body, at);
  }
}
