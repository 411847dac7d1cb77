package dev.conclave.e2e.swarm;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordinator as users run it: the node jar as a process (role coordinator, embedded PostgreSQL),
 * driven over HTTP and through request files, stopped and started again on the same data.
 */
class SwarmNodeIT {

  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private Path root;

  @BeforeEach
  void createRoot() throws Exception {
    root = Files.createTempDirectory("conclave-e2e-swarm");
  }

  @AfterEach
  void removeRoot() {
    TestDatabase.deleteTree(root);
  }

  private static JsonObject post(NodeProcess node, String token, String path, JsonObject body, int expected) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
      .header("authorization", "Bearer " + token).header("content-type", "application/json")
      .POST(HttpRequest.BodyPublishers.ofString(body.encode())).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + " " + response.body()).isEqualTo(expected);
    return new JsonObject(response.body());
  }

  private static JsonObject get(NodeProcess node, String token, String path) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
      .header("authorization", "Bearer " + token).GET().timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + " " + response.body()).isEqualTo(200);
    return new JsonObject(response.body());
  }

  private static JsonObject v1(String operation) {
    return new JsonObject().put("protocolVersion", "1.0").put("operation", operation);
  }

  @Test
  void theProtocolWorksOverHttpAndFilesAndItsStateSurvivesARestart() throws Exception {
    Path data = root.resolve("data");
    Map<String, String> env = Map.of("CONCLAVE_ROLES", "coordinator");
    try (NodeProcess node = NodeProcess.start(data, env)) {
      node.awaitReady(Duration.ofSeconds(90));
      String token = Files.readString(data.resolve("admin.token")).trim();

      post(node, token, "/api/v1/tasks", new JsonObject().put("id", "e2e-1").put("title", "write docs").put("requiredSkills",
        new io.vertx.core.json.JsonArray().add("docs")), 201);
      JsonObject agent = new JsonObject().put("id", "e2e-agent").put("name", "e2e").put("type", "custom")
        .put("capabilities", new JsonObject().put("skills", new io.vertx.core.json.JsonArray().add("docs")));
      assertThat(post(node, token, "/api/v1/agents/register", v1("REGISTER").put("agent", agent), 200).getString("agentSecret")).isNotBlank();
      assertThat(post(node, token, "/api/v1/tasks/claim", v1("CLAIM").put("agentId", "e2e-agent"), 200)
        .getJsonObject("task").getString("id")).isEqualTo("e2e-1");
      JsonObject done = post(node, token, "/api/v1/tasks/e2e-1/complete", v1("COMPLETE").put("agentId", "e2e-agent")
        .put("result", new JsonObject().put("summary", "written").put("learnings", new io.vertx.core.json.JsonArray()
          .add("Docs live in the docs folder"))), 200);
      assertThat(done.getBoolean("qualityGatePassed")).isTrue();

      Path requests = data.resolve("swarm").resolve("protocol").resolve("requests");
      Path temp = requests.getParent().resolve(".incoming");
      Files.writeString(temp, v1("HEARTBEAT").put("agentId", "e2e-agent").put("status", "idle").encode());
      Files.move(temp, requests.resolve("e2e-agent-heartbeat.json"), StandardCopyOption.ATOMIC_MOVE);
      Path response = requests.getParent().resolve("responses").resolve("e2e-agent-heartbeat-response.json");
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (!Files.exists(response) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(new JsonObject(Files.readString(response)).getBoolean("success")).isTrue();

      assertThat(node.terminate(Duration.ofSeconds(20))).isZero();
    }

    try (NodeProcess again = NodeProcess.start(data, env)) {
      again.awaitReady(Duration.ofSeconds(90));
      String token = Files.readString(data.resolve("admin.token")).trim();
      assertThat(get(again, token, "/api/v1/tasks/e2e-1").getString("status")).isEqualTo("completed");
      assertThat(get(again, token, "/api/v1/learnings?q=docs%20folder").getJsonArray("learnings")).hasSize(1);
      assertThat(again.terminate(Duration.ofSeconds(20))).isZero();
    }
  }
}
