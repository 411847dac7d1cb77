package dev.conclave.packs.conformance;

import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.RawPack;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /api/v1/packs/tools?capabilities=…} (admins) answers exactly the tools an agent with those
 * capabilities gets in its Welcome, each with its pack; without {@code capabilities}, every live tool.
 */
class ToolsQueryTest {

  private static PackHost host;

  @BeforeAll
  static void start() {
    host = PackHost.start();
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @Test
  void answersTheToolsOfTheWelcomeForTheSameCapabilities() throws Exception {
    try (RawPack pack = host.registerPack(host.packToken("vault-pack"), RawPack.manifest("vault-pack",
           RawPack.tool("vault_read", "vault"), RawPack.tool("vault_list")));
         PackHost.ToolAgent agent = host.agent("vaulted-1", "vault")) {
      List<String> welcomed = agent.welcome().getAvailableToolsList().stream().map(ToolDefinition::getName).toList();
      JsonObject answer = get("/api/v1/packs/tools?capabilities=vault", host.gw().node().adminToken());
      assertThat(answer.getJsonArray("capabilities")).containsExactly("vault");
      assertThat(names(answer)).containsExactlyElementsOf(welcomed).contains("vault_read", "vault_list");
      JsonObject read = answer.getJsonArray("tools").stream().map(JsonObject.class::cast)
        .filter(t -> "vault_read".equals(t.getString("name"))).findFirst().orElseThrow();
      assertThat(read.getString("packId")).isEqualTo("vault-pack");
      assertThat(read.getJsonArray("requiredCapabilities")).containsExactly("vault");
      assertThat(read.getInteger("timeoutSeconds")).isEqualTo(30);

      assertThat(names(get("/api/v1/packs/tools?capabilities=", host.gw().node().adminToken())))
        .as("no capabilities at all").contains("vault_list").doesNotContain("vault_read");
      assertThat(names(get("/api/v1/packs/tools", host.gw().node().adminToken())))
        .as("no filter: every live tool").contains("vault_read", "vault_list").containsAll(welcomed);
    }
  }

  @Test
  void aBadCapabilityIsA400NamingIt() throws Exception {
    HttpResponse<String> r = send("/api/v1/packs/tools?capabilities=ok,not%20ok", host.gw().node().adminToken());
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new JsonObject(r.body()).getString("code")).isEqualTo("capabilities_invalid");
    assertThat(r.body()).contains("'not ok'");
  }

  @Test
  void membersMayNotAsk() throws Exception {
    assertThat(send("/api/v1/packs/tools", host.gw().memberToken("tools-member")).statusCode()).isEqualTo(403);
  }

  private static List<String> names(JsonObject answer) {
    return answer.getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("name")).toList();
  }

  private static JsonObject get(String path, String token) throws Exception {
    HttpResponse<String> r = send(path, token);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body());
  }

  private static HttpResponse<String> send(String path, String token) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + host.gw().node().httpPort() + path))
      .header("authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
  }
}
