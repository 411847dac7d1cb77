package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.ListBindingsRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code POST} and {@code DELETE /api/v1/gateway/bindings}: admins create and delete bindings over
 * HTTP with AdminService's checks and problem codes, into the same table ({@code ListBindings} over
 * gRPC sees what HTTP made); anyone else is refused.
 */
class BindingHttpApiTest {

  private static final String PATH = "/api/v1/gateway/bindings";

  private static GatewayFixture gw;
  private static WebClient http;
  private static String admin;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    http = WebClient.create(gw.vertx());
    admin = gw.node().adminToken();
  }

  @AfterAll
  static void stop() {
    http.close();
    gw.close();
  }

  @Test
  void anAdminCreatesABindingThatBothApisSeeAndASecondOneForTheChannelIsAConflict() {
    HttpResponse<Buffer> made = send(http.post(port(), "127.0.0.1", PATH).bearerTokenAuthentication(admin),
      binding("slack", "C024BE91L", "http-agent-1"));
    assertThat(made.statusCode()).as(made.bodyAsString()).isEqualTo(201);
    JsonObject b = made.bodyAsJsonObject();
    assertThat(b.getString("frontend")).isEqualTo("slack");
    assertThat(b.getString("channelId")).isEqualTo("C024BE91L");
    assertThat(b.getString("agentId")).isEqualTo("http-agent-1");
    assertThat(UUID.fromString(b.getString("id"))).isNotNull();
    assertThat(b.getString("createdAt")).isNotBlank();

    JsonObject listed = send(http.get(port(), "127.0.0.1", PATH + "?agentId=http-agent-1").bearerTokenAuthentication(admin), null)
      .bodyAsJsonObject();
    assertThat(listed.getJsonArray("bindings")).containsExactly(b);
    assertThat(gw.admin().grpc().unary(AdminServiceGrpcClient.ListBindings, ListBindingsRequest.newBuilder().setAgentId("http-agent-1").build(),
      gw.admin().authorization()).response().orElseThrow().getBindingsList()).extracting(x -> x.getId()).containsExactly(b.getString("id"));

    HttpResponse<Buffer> again = send(http.post(port(), "127.0.0.1", PATH).bearerTokenAuthentication(admin),
      binding("slack", "C024BE91L", "http-agent-2"));
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.bodyAsJsonObject().getString("code")).isEqualTo("binding_exists");
  }

  @Test
  void badInputIsTheProblemAdminServiceAnswersNamingTheField() {
    refused(binding("sla:ck", "chan", "agent-1"), "frontend");
    refused(binding("slack", "chan", "agent 1"), "agent_id");
    refused(binding("slack", "c".repeat(301), "agent-1"), "channel_id");
    refused(new JsonObject().put("frontend", "slack").put("agentId", "agent-1"), "channel_id");
    refused(binding("slack", "chan", "agent-1").put("agentId", 7), "agent_id");
  }

  @Test
  void deletingABindingTakesItAwayAndAnUnknownOneIs404() {
    String id = send(http.post(port(), "127.0.0.1", PATH).bearerTokenAuthentication(admin), binding("matrix", "!room:matrix.org", "del-agent"))
      .bodyAsJsonObject().getString("id");
    HttpResponse<Buffer> deleted = send(http.delete(port(), "127.0.0.1", PATH + "/" + id).bearerTokenAuthentication(admin), null);
    assertThat(deleted.statusCode()).as(deleted.bodyAsString()).isEqualTo(200);
    assertThat(deleted.bodyAsJsonObject().getString("id")).isEqualTo(id);
    assertThat(deleted.bodyAsJsonObject().getBoolean("deleted")).isTrue();
    assertThat(send(http.get(port(), "127.0.0.1", PATH + "?agentId=del-agent").bearerTokenAuthentication(admin), null)
      .bodyAsJsonObject().getJsonArray("bindings")).isEmpty();

    HttpResponse<Buffer> gone = send(http.delete(port(), "127.0.0.1", PATH + "/" + id).bearerTokenAuthentication(admin), null);
    assertThat(gone.statusCode()).isEqualTo(404);
    assertThat(gone.bodyAsJsonObject().getString("code")).isEqualTo("binding_not_found");
    HttpResponse<Buffer> notAnId = send(http.delete(port(), "127.0.0.1", PATH + "/nope").bearerTokenAuthentication(admin), null);
    assertThat(notAnId.statusCode()).isEqualTo(400);
    assertThat(notAnId.bodyAsJsonObject().getString("code")).isEqualTo("field_invalid");
  }

  @Test
  void aMemberMayNeitherCreateNorDeleteBindings() {
    String member = gw.memberToken("binder");
    assertThat(send(http.post(port(), "127.0.0.1", PATH).bearerTokenAuthentication(member), binding("slack", "C1", "agent-1"))
      .statusCode()).isEqualTo(403);
    String id = send(http.post(port(), "127.0.0.1", PATH).bearerTokenAuthentication(admin), binding("slack", "C-kept", "kept-agent"))
      .bodyAsJsonObject().getString("id");
    assertThat(send(http.delete(port(), "127.0.0.1", PATH + "/" + id).bearerTokenAuthentication(member), null).statusCode()).isEqualTo(403);
    assertThat(send(http.get(port(), "127.0.0.1", PATH + "?agentId=kept-agent").bearerTokenAuthentication(admin), null)
      .bodyAsJsonObject().getJsonArray("bindings")).hasSize(1);
  }

  private static JsonObject binding(String frontend, String channel, String agent) {
    return new JsonObject().put("frontend", frontend).put("channelId", channel).put("agentId", agent);
  }

  private static void refused(JsonObject body, String field) {
    HttpResponse<Buffer> r = send(http.post(port(), "127.0.0.1", PATH).bearerTokenAuthentication(admin), body);
    assertThat(r.statusCode()).as(body.encode()).isEqualTo(400);
    JsonObject problem = r.bodyAsJsonObject();
    assertThat(problem.getString("code")).isEqualTo("binding_invalid");
    assertThat(problem.getString("detail")).startsWith(field + " ");
  }

  private static int port() {
    return gw.node().httpPort();
  }

  private static HttpResponse<Buffer> send(HttpRequest<Buffer> request, JsonObject body) {
    try {
      return (body == null ? request.send() : request.sendJsonObject(body)).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
