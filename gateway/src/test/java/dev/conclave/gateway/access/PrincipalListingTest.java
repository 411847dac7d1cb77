package dev.conclave.gateway.access;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.auth.Principal;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.RegisterAgentRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an admin sees of a principal before approving it (GET /api/v1/gateway/principals): the key
 * fingerprint it signs with, and its owner by name, not only by id, also when the listing is
 * filtered to pending principals and the owner is not in it.
 */
class PrincipalListingTest {

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

  private static JsonObject listed(String query, String principalId) {
    HttpResponse<Buffer> resp = GatewayFixture.await(http.get(gw.node().httpPort(), "127.0.0.1", "/api/v1/gateway/principals" + query)
      .bearerTokenAuthentication(gw.node().adminToken()).send());
    assertThat(resp.statusCode()).isEqualTo(200);
    return resp.bodyAsJsonObject().getJsonArray("principals").stream().map(JsonObject.class::cast)
      .filter(p -> p.getString("principalId").equals(principalId)).findFirst()
      .orElseThrow(() -> new AssertionError(principalId + " is not in " + resp.bodyAsString()));
  }

  @Test
  void aPendingAgentShowsItsKeyFingerprintAndItsOwnersName() {
    Principal dana = gw.newMember("Dana Scully");
    String fp = "0f1e2d3c4b5a6978".repeat(4);
    var owner = gw.clients(gw.token(dana));
    var registered = owner.grpc().unary(ClientServiceGrpcClient.RegisterAgent,
      RegisterAgentRequest.newBuilder().setDisplayName("dana's laptop").setFingerprint(fp).build(), owner.authorization());
    String id = registered.response().orElseThrow().getPrincipalId();

    for (String query : new String[] {"?status=pending", ""}) {
      JsonObject p = listed(query, id);
      assertThat(p.getString("status")).isEqualTo("pending");
      assertThat(p.getString("fingerprint")).as(query).isEqualTo(fp);
      assertThat(p.getString("ownerId")).as(query).isEqualTo(dana.id().toString());
      assertThat(p.getString("ownerName")).as(query).isEqualTo("Dana Scully");
    }
    // a principal without an owner has neither field
    JsonObject member = listed("", dana.id().toString());
    assertThat(member.containsKey("ownerId")).isFalse();
    assertThat(member.containsKey("ownerName")).isFalse();
  }
}
