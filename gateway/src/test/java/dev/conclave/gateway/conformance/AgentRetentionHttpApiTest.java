package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET} and {@code PUT /api/v1/gateway/agents/{agentId}/retention}: an admin reads and sets an
 * agent's own retention (null is the node's setting: 90 days, 50 events kept, requests 90 days);
 * no token is 401, a member 403, an agent that never registered 404 {@code agent_not_found}, a bad
 * value or an unknown member 400 {@code field_invalid} naming the field.
 */
class AgentRetentionHttpApiTest {

  private static final String AGENT = "ret-agent";
  private static final String PATH = "/api/v1/gateway/agents/" + AGENT + "/retention";

  private static GatewayFixture gw;
  private static WebClient http;
  private static String admin;
  private static RawAgent agent;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    http = WebClient.create(gw.vertx());
    admin = gw.node().adminToken();
    agent = gw.connect(AGENT, gw.agentToken(AGENT));
  }

  @AfterAll
  static void stop() {
    agent.close();
    http.close();
    gw.close();
  }

  @Test
  void anAdminSetsReadsAndClearsAnAgentsOverride() {
    HttpResponse<Buffer> none = send(http.get(port(), "127.0.0.1", PATH).bearerTokenAuthentication(admin), null);
    assertThat(none.statusCode()).as(none.bodyAsString()).isEqualTo(200);
    assertThat(none.bodyAsJsonObject()).isEqualTo(new JsonObject().put("agentId", AGENT).putNull("conversationDays").putNull("keepEvents")
      .put("effective", new JsonObject().put("conversationDays", 90).put("keepEvents", 50).put("requestDays", 90)));

    HttpResponse<Buffer> set = put(admin, new JsonObject().put("conversationDays", 1).put("keepEvents", 5));
    assertThat(set.statusCode()).as(set.bodyAsString()).isEqualTo(200);
    JsonObject expected = new JsonObject().put("agentId", AGENT).put("conversationDays", 1).put("keepEvents", 5)
      .put("effective", new JsonObject().put("conversationDays", 1).put("keepEvents", 5).put("requestDays", 1));
    assertThat(set.bodyAsJsonObject()).isEqualTo(expected);
    assertThat(send(http.get(port(), "127.0.0.1", PATH).bearerTokenAuthentication(admin), null).bodyAsJsonObject()).isEqualTo(expected);

    JsonObject keepOnly = put(admin, new JsonObject().putNull("conversationDays").put("keepEvents", 0)).bodyAsJsonObject();
    assertThat(keepOnly.getValue("conversationDays")).isNull();
    assertThat(keepOnly.getJsonObject("effective")).isEqualTo(new JsonObject().put("conversationDays", 90).put("keepEvents", 0)
      .put("requestDays", 90));

    JsonObject cleared = put(admin, new JsonObject()).bodyAsJsonObject();
    assertThat(cleared).isEqualTo(none.bodyAsJsonObject());
  }

  @Test
  void noTokenIs401AMemberIs403AndAnUnknownAgentIs404() {
    assertThat(send(http.get(port(), "127.0.0.1", PATH), null).statusCode()).isEqualTo(401);
    assertThat(send(http.put(port(), "127.0.0.1", PATH), new JsonObject()).statusCode()).isEqualTo(401);
    String member = gw.memberToken("ret-member");
    assertThat(send(http.get(port(), "127.0.0.1", PATH).bearerTokenAuthentication(member), null).statusCode()).isEqualTo(403);
    assertThat(put(member, new JsonObject().put("conversationDays", 1)).statusCode()).isEqualTo(403);
    for (HttpResponse<Buffer> r : java.util.List.of(
      send(http.get(port(), "127.0.0.1", "/api/v1/gateway/agents/never-seen/retention").bearerTokenAuthentication(admin), null),
      send(http.put(port(), "127.0.0.1", "/api/v1/gateway/agents/never-seen/retention").bearerTokenAuthentication(admin),
        new JsonObject().put("conversationDays", 1)))) {
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(404);
      assertThat(r.bodyAsJsonObject().getString("code")).isEqualTo("agent_not_found");
    }
  }

  @Test
  void badValuesAndUnknownMembersAre400NamingTheField() {
    refused(new JsonObject().put("conversationDays", 0), "conversationDays");
    refused(new JsonObject().put("conversationDays", 1.5), "conversationDays");
    refused(new JsonObject().put("conversationDays", "7"), "conversationDays");
    refused(new JsonObject().put("conversationDays", 36_501), "conversationDays");
    refused(new JsonObject().put("keepEvents", -1), "keepEvents");
    refused(new JsonObject().put("keepEvents", 1).put("days", 3), "days");
    JsonObject after = send(http.get(port(), "127.0.0.1", PATH).bearerTokenAuthentication(admin), null).bodyAsJsonObject();
    assertThat(after.getValue("keepEvents")).as("nothing refused was stored").isNotEqualTo(1);
  }

  private static void refused(JsonObject body, String field) {
    HttpResponse<Buffer> r = put(admin, body);
    assertThat(r.statusCode()).as(body.encode() + " " + r.bodyAsString()).isEqualTo(400);
    JsonObject problem = r.bodyAsJsonObject();
    assertThat(problem.getString("code")).isEqualTo("field_invalid");
    assertThat(problem.getString("detail")).startsWith(field + " ");
  }

  private static HttpResponse<Buffer> put(String token, JsonObject body) {
    return send(http.put(port(), "127.0.0.1", PATH).bearerTokenAuthentication(token), body);
  }

  private static int port() {
    return gw.node().httpPort();
  }

  private static HttpResponse<Buffer> send(HttpRequest<Buffer> request, JsonObject body) {
    try {
      return (body == null ? request.send() : request.sendJsonObject(body)).await(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
