package dev.conclave.gateway.access;

import com.google.protobuf.Empty;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A principal's tokens can be listed (never their values) and revoked one by one, by the principal or an admin. */
class TokenManagementTest {

  private static GatewayFixture gw;
  private static WebClient http;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    http = WebClient.create(gw.vertx());
  }

  @AfterAll
  static void stop() {
    http.close();
    gw.close();
  }

  @Test
  void aPrincipalListsItsTokensAndRevokesOne() {
    Principal carol = gw.newMember("carol");
    String first = gw.token(carol);
    String second = gw.token(carol);
    Caller firstCaller = GatewayFixture.await(gw.node().runtime().context().tokens().authenticate(first));
    GatewayFixture.await(gw.node().runtime().context().tokens().use().flush(gw.node().runtime().context().pool()));

    HttpResponse<Buffer> listed = send(http.get(port(), "127.0.0.1", "/api/v1/gateway/principals/" + carol.id() + "/tokens")
      .bearerTokenAuthentication(second), null);
    assertThat(listed.statusCode()).isEqualTo(200);
    JsonArray tokens = listed.bodyAsJsonObject().getJsonArray("tokens");
    assertThat(tokens).hasSize(2);
    assertThat(listed.bodyAsString()).doesNotContain(first).doesNotContain(second);
    JsonObject firstInfo = tokens.stream().map(JsonObject.class::cast)
      .filter(t -> t.getString("tokenId").equals(firstCaller.tokenId().orElseThrow().toString())).findFirst().orElseThrow();
    assertThat(firstInfo.getString("purpose")).isEqualTo("api");
    assertThat(firstInfo.containsKey("issuedAt")).isTrue();
    assertThat(firstInfo.containsKey("expiresAt")).isTrue();
    assertThat(firstInfo.getString("lastUsedAt")).as("the verify above was recorded").isNotNull();

    Principal mallory = gw.newMember("mallory");
    String malloryToken = gw.token(mallory);
    assertThat(send(http.get(port(), "127.0.0.1", "/api/v1/gateway/principals/" + carol.id() + "/tokens")
      .bearerTokenAuthentication(malloryToken), null).statusCode()).isEqualTo(403);
    assertThat(send(http.delete(port(), "127.0.0.1", "/api/v1/gateway/tokens/" + firstInfo.getString("tokenId"))
      .bearerTokenAuthentication(malloryToken), null).statusCode()).isEqualTo(404);

    HttpResponse<Buffer> revoked = send(http.delete(port(), "127.0.0.1", "/api/v1/gateway/tokens/" + firstInfo.getString("tokenId"))
      .bearerTokenAuthentication(second), null);
    assertThat(revoked.statusCode()).isEqualTo(200);
    assertThat(me(first)).isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(me(second)).isEqualTo(GrpcStatus.OK);
  }

  @Test
  void aBridgeTokenIsIssuedForItsPurposeAndWorksNowhereElse() {
    Principal erin = gw.newMember("erin");
    String admin = gw.node().adminToken();
    HttpResponse<Buffer> issued = send(http.post(port(), "127.0.0.1", "/api/v1/gateway/principals/" + erin.id() + "/tokens")
      .bearerTokenAuthentication(admin), new JsonObject().put("purpose", "bridge"));
    assertThat(issued.statusCode()).as(issued.bodyAsString()).isEqualTo(201);
    assertThat(issued.bodyAsJsonObject().getString("purpose")).isEqualTo("bridge");
    String bridge = issued.bodyAsJsonObject().getString("token");

    assertThat(me(bridge)).isEqualTo(GrpcStatus.UNAUTHENTICATED);
    HttpResponse<Buffer> onApi = send(http.get(port(), "127.0.0.1", "/api/v1/gateway/agents").bearerTokenAuthentication(bridge), null);
    assertThat(onApi.statusCode()).isEqualTo(401);
    assertThat(onApi.bodyAsJsonObject().getString("code")).isEqualTo("token_wrong_purpose");

    for (Object bad : new Object[] {"mcp", "root", 7}) {
      HttpResponse<Buffer> refused = send(http.post(port(), "127.0.0.1", "/api/v1/gateway/principals/" + erin.id() + "/tokens")
        .bearerTokenAuthentication(admin), new JsonObject().put("purpose", bad));
      assertThat(refused.statusCode()).as("purpose %s", bad).isEqualTo(400);
      assertThat(refused.bodyAsJsonObject().getString("code")).isEqualTo("purpose_invalid");
    }
    assertThat(send(http.post(port(), "127.0.0.1", "/api/v1/gateway/principals/" + erin.id() + "/tokens")
      .bearerTokenAuthentication(admin), new JsonObject().put("ttlSeconds", "soon")).statusCode()).isEqualTo(400);
  }

  @Test
  void anAdminListsAnyonesTokensIncludingTheMcpOnes() {
    Principal dan = gw.newMember("dan");
    gw.token(dan);
    HttpResponse<Buffer> listed = send(http.get(port(), "127.0.0.1", "/api/v1/gateway/principals/" + dan.id() + "/tokens")
      .bearerTokenAuthentication(gw.node().adminToken()), null);
    assertThat(listed.statusCode()).isEqualTo(200);
    assertThat(listed.bodyAsJsonObject().getJsonArray("tokens")).hasSize(1);
  }

  private static GrpcStatus me(String token) {
    return gw.grpc().unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(token)).status();
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
