package dev.conclave.swarm.validation;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which error a request with several faults gets first, through the real protocol path (HTTP, the
 * coordinator, PostgreSQL), pinned as it is. A request's checks run in layers, all in
 * {@code swarm.dispatch} since they moved out of Java: the operation's first checks (sizes, id formats,
 * ranges: {@code swarm.check_<operation>}; until 2026-12-06 Java's, {@code ProtocolRequests.validate}),
 * then the caller checks (a signed request acts only as its agent: the signer in the dispatch options),
 * then the rate limit, then the operation's own checks (JSON types, required members, enumerations:
 * {@code swarm.op_*}). A check moved from one layer to another changes the answer to some of these
 * requests; these tests say which. (The comments below say "Java" for the first checks and
 * "database" for the operation's own, as the layers were named when the order was pinned.)
 */
class ErrorOrderTest {

  private static SwarmNode swarm;
  private static SwarmApi api;
  private static SwarmApi member;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start(Map.of("CONCLAVE_SWARM_RATE_LIMITS", "true"));
    api = swarm.api();
    member = api.as(swarm.memberToken("order-member"));
  }

  @AfterAll
  static void stop() {
    member.close();
    swarm.close();
  }

  /** Each test a whole rate-limit window of its own (REGISTER counts 10 a minute per address). */
  @BeforeEach
  void nextWindow() {
    Instant now = swarm.clock().instant();
    swarm.clock().advance(Duration.between(now, now.truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1))));
  }

  private static String agent() {
    String id = "order-" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(api.register(id, List.of("java")).status()).isEqualTo(200);
    return id;
  }

  private static void assertInvalid(Reply reply, String field, String problem) {
    assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
    assertThat(reply.code()).as(reply.toString()).isEqualTo("invalid_operation");
    assertThat(reply.json().getString("field")).as(reply.toString()).isEqualTo(field);
    assertThat(reply.json().getString("detail")).as(reply.toString()).isEqualTo(field + " " + problem);
  }

  private static String text(int length) {
    return "x".repeat(length);
  }

  @Test
  void aSizeFormatOrRangeFaultComesBeforeATypeOrRequiredMemberFaultInEveryOperation() {
    String agent = agent();
    JsonArray skills = new JsonArray();
    for (int i = 0; i <= Limits.SKILLS; i++) {
      skills.add("s" + i);
    }
    // REGISTER: too many skills (Java) and a type of the wrong JSON type (database)
    JsonObject spec = SwarmApi.agentSpec("order-reg", List.of("java")).put("type", 7);
    spec.getJsonObject("capabilities").put("skills", skills);
    assertInvalid(api.post("/api/v1/agents/register", v1().put("agent", spec)), "agent.capabilities.skills",
      "must have at most " + Limits.SKILLS + " entries, got " + (Limits.SKILLS + 1));
    // HEARTBEAT: currentTask.progress out of range (Java), status missing (database)
    assertInvalid(api.post("/api/v1/agents/" + agent + "/heartbeat", v1().put("agentId", agent)
      .put("currentTask", new JsonObject().put("id", "t").put("progress", 101))), "currentTask.progress", "must be between 0 and 100");
    // CLAIM: filter.maxMinutes out of range (Java), a priority outside the enumeration (database)
    assertInvalid(api.post("/api/v1/tasks/claim", v1().put("agentId", agent).put("filter", new JsonObject()
      .put("priorities", new JsonArray().add("urgent")).put("maxMinutes", 0))), "filter.maxMinutes", "must be between 1 and " + Limits.MINUTES);
    // PROGRESS: percentComplete out of range (Java), phase of the wrong JSON type (database)
    assertInvalid(api.post("/api/v1/tasks/order-t/progress", v1().put("agentId", agent).put("taskId", "order-t")
      .put("progress", new JsonObject().put("phase", 5).put("percentComplete", 101).put("description", "d"))),
      "progress.percentComplete", "must be between 0 and 100");
    // COMPLETE: a learning too long (Java), the summary of the wrong JSON type (database)
    assertInvalid(api.post("/api/v1/tasks/order-t/complete", v1().put("agentId", agent).put("taskId", "order-t")
      .put("result", new JsonObject().put("summary", 5).put("learnings", new JsonArray().add(text(Limits.LEARNING + 1))))),
      "result.learnings[0]", "must be at most " + Limits.LEARNING + " characters");
    // COMPLETE: a quality count above its limit (Java), buildSuccess missing (database)
    assertInvalid(api.post("/api/v1/tasks/order-t/complete", v1().put("agentId", agent).put("taskId", "order-t")
      .put("result", SwarmApi.result("done")).put("qualityMetrics", new JsonObject().put("testsRan", Limits.COUNT + 1)
        .put("testsPassed", 1).put("lintErrors", 0).put("typeErrors", 0))),
      "qualityMetrics.testsRan", "must be at most " + Limits.COUNT);
    // FAIL: the message too long (Java), recoverable of the wrong JSON type (database)
    assertInvalid(api.post("/api/v1/tasks/order-t/fail", v1().put("agentId", agent).put("taskId", "order-t")
      .put("failure", new JsonObject().put("type", "task_error").put("message", text(Limits.SHORT_TEXT * 2 + 1)).put("recoverable", "yes"))),
      "failure.message", "must be at most " + Limits.SHORT_TEXT * 2 + " characters");
    // SEND_MESSAGE: "to" not an id (Java), type missing (database)
    assertInvalid(api.post("/api/v1/messages", v1().put("agentId", agent)
      .put("message", new JsonObject().put("to", "bad id!").put("payload", "hi"))), "message.to", Limits.ID_RULE);
    // RECEIVE_MESSAGES: since too long (Java), agentId missing (database)
    assertInvalid(api.get("/api/v1/messages?protocolVersion=1.0&since=" + text(65)), "since", "must be at most 64 characters");
    // ACK_MESSAGE: agentId not an id (Java), the message id not a UUID (database)
    assertInvalid(api.post("/api/v1/messages/not-a-uuid/ack", v1().put("agentId", "bad id!")), "agentId", Limits.ID_RULE);
    // RELEASE_LEASE: the path too long (Java), agentId of the wrong JSON type (database, which reads agentId first)
    assertInvalid(api.post("/api/v1/leases/release", v1().put("agentId", 5).put("filePath", text(Limits.PATH + 1))),
      "filePath", "must be at most " + Limits.PATH + " characters");
    // ACQUIRE_LEASE: taskId not an id (Java), durationMs of the wrong JSON type (database)
    assertInvalid(api.post("/api/v1/leases/acquire", v1().put("agentId", agent).put("taskId", "bad id!").put("filePath", "src/order.ts")
      .put("durationMs", "soon")), "taskId", Limits.ID_RULE);
  }

  @Test
  void aSizeFormatOrRangeFaultComesBeforeTheSignedAgentCheckATypeFaultAfterIt() throws Exception {
    String signer = "order-" + UUID.randomUUID().toString().substring(0, 8);
    String secret = member.register(signer, List.of("java")).json().getString("agentSecret");
    String other = agent();
    Instant at = swarm.clock().instant();

    // acting for another agent, with a path too long: the Java check answers first
    assertInvalid(signed(signer, secret, "/api/v1/leases/release", v1().put("agentId", other).put("filePath", text(Limits.PATH + 1)), at),
      "filePath", "must be at most " + Limits.PATH + " characters");

    // acting for another agent, with a path of the wrong JSON type: the signature's agent answers first
    Reply type = signed(signer, secret, "/api/v1/leases/release", v1().put("agentId", other).put("filePath", 5), at.plusMillis(1));
    assertThat(type.status()).as(type.toString()).isEqualTo(403);
    assertThat(type.code()).isEqualTo("agent_mismatch");

    // ACQUIRE_LEASE defers its Java problems to the database (a held file is refused first): the
    // signature's agent answers first even for a taskId that is no id
    Reply deferred = signed(signer, secret, "/api/v1/leases/acquire", v1().put("agentId", other).put("taskId", "bad id!")
      .put("filePath", "src/order.ts").put("durationMs", 1000), at.plusMillis(2));
    assertThat(deferred.status()).as(deferred.toString()).isEqualTo(403);
    assertThat(deferred.code()).isEqualTo("agent_mismatch");
  }

  @Test
  void aSizeFormatOrRangeFaultComesBeforeTheRateLimitATypeFaultAfterIt() {
    String agent = agent();
    for (int i = 0; i < 12; i++) {
      assertThat(api.heartbeat(agent, "idle").status()).isEqualTo(200);
    }
    assertThat(api.heartbeat(agent, "idle").status()).as("the thirteenth heartbeat of the minute").isEqualTo(429);

    assertInvalid(api.post("/api/v1/agents/" + agent + "/heartbeat", v1().put("agentId", agent).put("status", "idle")
      .put("currentTask", new JsonObject().put("id", "t").put("progress", 101))), "currentTask.progress", "must be between 0 and 100");
    Reply type = api.post("/api/v1/agents/" + agent + "/heartbeat", v1().put("agentId", agent).put("status", 3));
    assertThat(type.status()).as(type.toString()).isEqualTo(429);
    assertThat(type.code()).isEqualTo("rate_limited");
  }

  private static Reply signed(String agent, String secret, String target, JsonObject body, Instant at) {
    return api.signed(agent, secret, HttpMethod.POST, target, body, at);
  }
}
