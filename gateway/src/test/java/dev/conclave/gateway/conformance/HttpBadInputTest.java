package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.testing.RawHttp;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Malformed HTTP requests get a 4xx problem naming what is wrong, never a 500 or a Java class name. */
class HttpBadInputTest {

  private static GatewayFixture gw;

  private record Reply(int status, String contentType, String body) {
  }

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /**
   * Over a raw socket: Vert.x's client sometimes lost the end of an answer whose connection closes as
   * it arrives (uri_invalid, 413), and the test timed out on a correct answer.
   */
  private static Reply send(HttpMethod method, String uri, String contentType, String body) {
    java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
    headers.put("authorization", gw.admin().authorization());
    if (contentType != null) {
      headers.put("content-type", contentType);
    }
    RawHttp.Response r = RawHttp.send(gw.node().httpPort(), method.name(), uri, headers,
      body == null ? null : body.getBytes(java.nio.charset.StandardCharsets.UTF_8), 15_000);
    assertThat(r.status()).as(r.body()).isPositive();
    return new Reply(r.status(), r.header("content-type"), r.body());
  }

  private static void refused(Reply reply, int status, String code) {
    assertThat(reply.status()).as(reply.toString()).isEqualTo(status);
    assertThat(reply.contentType()).isEqualTo("application/problem+json");
    JsonObject problem = new JsonObject(reply.body());
    assertThat(problem.getString("code")).isEqualTo(code);
    assertThat(reply.body()).doesNotContain("java.").doesNotContain("Exception").doesNotContain("com.fasterxml");
  }

  @Test
  void aPathOrQueryThatDoesNotDecodeIsRefused() {
    refused(send(HttpMethod.GET, "/api/v1/audit?%", null, null), 400, "uri_invalid");
    refused(send(HttpMethod.GET, "/api/v1/gateway/agents?a=%zz", null, null), 400, "uri_invalid");
    refused(send(HttpMethod.GET, "/api/v1/gateway/requests/%u0041", null, null), 400, "uri_invalid");
    refused(send(HttpMethod.POST, "/api/v1/gateway/agents/%zz/inject", "application/json", "{}"), 400, "uri_invalid");
    refused(send(HttpMethod.POST, "/auth/session?from=%", "application/json", "{}"), 400, "uri_invalid");
  }

  @Test
  void anEmptyBodyIsAnEmptyObjectNotAServerError() {
    refused(send(HttpMethod.POST, "/api/v1/gateway/principals", "application/json", null), 400, "field_invalid");
    assertThat(send(HttpMethod.POST, "/auth/session", "application/json", null).status()).isEqualTo(400);
  }

  @Test
  void wrongJsonTypesAreInvalid() {
    refused(send(HttpMethod.POST, "/api/v1/gateway/principals", "application/json", "{\"type\":\"client\",\"displayName\":\"x\",\"roles\":429}"),
      400, "value_invalid");
  }

  /** A field given as JSON null is a missing field, never a server error (fuzz finding: a null principalId was a 500). */
  @Test
  void aNullFieldIsAMissingField() {
    refused(send(HttpMethod.POST, "/api/v1/gateway/agents/any-agent/grants", "application/json", "{\"principalId\":null}"), 400,
      "field_invalid");
    refused(send(HttpMethod.POST, "/api/v1/gateway/principals", "application/json", "{\"type\":null,\"displayName\":null}"), 400,
      "field_invalid");
    refused(send(HttpMethod.POST, "/api/v1/gateway/agents/any-agent/inject", "application/json", "{\"content\":null,\"priority\":null}"),
      400, "field_required");
  }

  @Test
  void bodiesThatAreNotJsonObjectsAreRefused() {
    for (String body : new String[] {"[]", "1", "\"text\"", "null", "{oops", "true"}) {
      refused(send(HttpMethod.POST, "/api/v1/gateway/principals", "application/json", body), 400, "body_invalid");
      refused(send(HttpMethod.POST, "/api/v1/gateway/conversations/nobody/messages", "application/json", body), 400, "body_invalid");
    }
  }

  @Test
  void aMethodARouteDoesNotTakeIsAnswered() {
    Reply reply = send(HttpMethod.DELETE, "/api/v1/gateway/principals", "application/json", "{}");
    assertThat(reply.status()).as(reply.toString()).isBetween(400, 499);
    assertThat(reply.contentType()).isEqualTo("application/problem+json");
  }

  @Test
  void aBodyOverTheLimitIsAnsweredWhileTheClientIsStillSending() {
    Reply reply = send(HttpMethod.DELETE, "/api/v1/gateway/principals?a=b", "application/json",
      "{\"skills\":[" + "1,".repeat(3_000_000) + "1]}");
    assertThat(reply.status()).as(reply.toString()).isEqualTo(413);
  }

  @Test
  void formBodiesAreUnsupported() {
    refused(send(HttpMethod.POST, "/api/v1/gateway/principals", "multipart/form-data; boundary=x", "{\"content\":\"x\"}"), 415,
      "media_type_unsupported");
    refused(send(HttpMethod.GET, "/api/v1/gateway/agents", "application/x-www-form-urlencoded", "[1,1]"), 415, "media_type_unsupported");
  }

  /** The session endpoint takes only WebSocket upgrades: a plain GET (with or without a body) is answered, never a 500 or a hang. */
  @Test
  void aPlainRequestToTheSessionSocketIsRefused() {
    refused(send(HttpMethod.GET, "/api/v1/sessions", null, null), 400, "websocket_upgrade_required");
    refused(send(HttpMethod.GET, "/api/v1/sessions?&", "application/json", ""), 400, "websocket_upgrade_required");
    refused(send(HttpMethod.GET, "/api/v1/sessions", "application/json", "{}"), 400, "websocket_upgrade_required");
  }

  /** Routes outside {@code /api/} read bodies too (sign-in, MCP): a long form field made Netty's decoder throw a 500. */
  @Test
  void formBodiesAreUnsupportedOutsideTheApiToo() {
    String longField = "{\"clientInfo\":[" + "1,".repeat(1_000) + "1]}";
    refused(send(HttpMethod.POST, "/auth/session", "multipart/form-data; boundary=fz", longField), 415, "media_type_unsupported");
    refused(send(HttpMethod.POST, "/auth/session", "application/x-www-form-urlencoded", longField), 415, "media_type_unsupported");
  }

  /** A refused form's unread body must not leave the connection stuck: more refusals than the client has connections, then a normal call. */
  @Test
  void aRefusedFormLeavesNoConnectionStuck() {
    for (int i = 0; i < 12; i++) {
      refused(send(HttpMethod.POST, "/auth/session", "multipart/form-data; boundary=fz", "x".repeat(8_000)), 415, "media_type_unsupported");
      refused(send(HttpMethod.POST, "/api/v1/gateway/principals", "application/x-www-form-urlencoded", "a=" + "b".repeat(8_000)), 415,
        "media_type_unsupported");
    }
    assertThat(send(HttpMethod.GET, "/health/live", null, null).status()).isEqualTo(200);
  }
}
