package dev.conclave.swarm.api;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import dev.conclave.platform.testing.Await;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/** Bad protocol requests get a 400 problem that names what is wrong. */
class ProtocolValidationTest {

  private static SwarmNode swarm;
  private static SwarmApi api;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start();
    api = swarm.api();
    api.register("validator", List.of("x"));
  }

  @AfterAll
  static void stop() {
    swarm.close();
  }

  private static void rejected(Reply reply, String code, String field) {
    assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
    assertThat(reply.contentType()).isEqualTo("application/problem+json");
    JsonObject body = reply.json();
    assertThat(body.getString("code")).isEqualTo(code);
    assertThat(body.getInteger("status")).isEqualTo(400);
    assertThat(body.getBoolean("success")).isFalse();
    assertThat(body.getString("detail")).isNotBlank().isEqualTo(body.getString("error"));
    if (field != null) {
      assertThat(body.getString("field")).isEqualTo(field);
    }
  }

  @Test
  void theProtocolVersionMustBeOnePointZero() {
    rejected(api.post("/api/v1/tasks/claim", new JsonObject().put("agentId", "validator")), "unsupported_protocol_version", "protocolVersion");
    rejected(api.post("/api/v1/tasks/claim", new JsonObject().put("protocolVersion", "2.0").put("agentId", "validator")),
      "unsupported_protocol_version", "protocolVersion");
    rejected(api.post("/api/v1/tasks/claim", new JsonObject().put("protocolVersion", 1.0).put("agentId", "validator")),
      "unsupported_protocol_version", "protocolVersion");
    assertThat(api.post("/api/v1/tasks/claim", new JsonObject().put("protocolVersion", "2.0")).json().getString("detail"))
      .contains("'2.0'", "1.0");
  }

  @Test
  void theBodyMustBeAJsonObjectForTheRightOperation() {
    rejected(Await.await(api.send(HttpMethod.POST, "/api/v1/tasks/claim", Buffer.buffer("{oops"), Map.of())), "invalid_operation", "body");
    rejected(Await.await(api.send(HttpMethod.POST, "/api/v1/tasks/claim", Buffer.buffer("[]"), Map.of())), "invalid_operation", "body");
    rejected(api.post("/api/v1/tasks/claim", null), "invalid_operation", "body");
    rejected(api.post("/api/v1/tasks/claim", v1().put("operation", "COMPLETE").put("agentId", "validator")), "invalid_operation", "operation");
  }

  @Test
  void agentNamesMayNotHideCharacters() {
    JsonObject agent = SwarmApi.agentSpec("named", List.of("x"));
    rejected(api.post("/api/v1/agents/register", v1().put("agent", agent.copy().put("name", "admin\u202E tnega"))), "invalid_operation", "agent.name");
    rejected(api.post("/api/v1/agents/register", v1().put("agent", agent.copy().put("name", "two\nlines"))), "invalid_operation", "agent.name");
    assertThat(api.post("/api/v1/agents/register", v1().put("agent", agent.copy().put("name", "Ågent 名前 <b>"))).status()).isEqualTo(200);
  }

  @Test
  void membersAreCheckedForPresenceTypeValueAndSize() {
    rejected(api.post("/api/v1/agents/register", v1()), "invalid_operation", "agent");
    JsonObject agent = SwarmApi.agentSpec("v2", List.of("x"));
    rejected(api.post("/api/v1/agents/register", v1().put("agent", agent.copy().put("type", "skynet"))), "invalid_operation", "agent.type");
    rejected(api.post("/api/v1/agents/register", v1().put("agent", agent.copy().put("id", "bad id!"))), "invalid_operation", "agent.id");
    JsonObject badSkills = agent.copy();
    badSkills.getJsonObject("capabilities").put("skills", "java");
    rejected(api.post("/api/v1/agents/register", v1().put("agent", badSkills)), "invalid_operation", "agent.capabilities.skills");
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 65; i++) {
      many.add("s" + i);
    }
    JsonObject tooMany = agent.copy();
    tooMany.getJsonObject("capabilities").put("skills", new JsonArray(many));
    rejected(api.post("/api/v1/agents/register", v1().put("agent", tooMany)), "invalid_operation", "agent.capabilities.skills");
    JsonObject badMinutes = agent.copy();
    badMinutes.getJsonObject("capabilities").put("maxTaskMinutes", "sixty");
    rejected(api.post("/api/v1/agents/register", v1().put("agent", badMinutes)), "invalid_operation", "agent.capabilities.maxTaskMinutes");

    rejected(api.post("/api/v1/agents/validator/heartbeat", v1().put("status", "sleeping")), "invalid_operation", "status");
    rejected(api.claim("validator", new JsonObject().put("priorities", new JsonArray().add("urgent"))), "invalid_operation", "filter.priorities[0]");
    rejected(api.claim("validator", new JsonObject().put("maxMinutes", 1.5)), "invalid_operation", "filter.maxMinutes");
    rejected(api.post("/api/v1/tasks/t1/progress", v1().put("agentId", "validator").put("progress",
      new JsonObject().put("phase", "implementing").put("percentComplete", 101).put("description", "x"))), "invalid_operation",
      "progress.percentComplete");
    rejected(api.post("/api/v1/leases/acquire", v1().put("agentId", "validator").put("taskId", "t").put("filePath", "f")),
      "invalid_operation", "durationMs");
    rejected(api.post("/api/v1/messages/not-a-uuid/ack", v1().put("agentId", "validator")), "invalid_operation", "messageId");
  }
}
