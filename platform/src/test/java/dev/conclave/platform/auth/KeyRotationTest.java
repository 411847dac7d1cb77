package dev.conclave.platform.auth;

import com.google.protobuf.Empty;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Signing-key rotation: a new key signs from the moment the node reads it (the running node re-reads
 * the key file), tokens of the old key stay valid until it is retired, and then stop working.
 */
class KeyRotationTest {

  private static Vertx vertx;
  private static TestNode node;
  private static GrpcCalls grpc;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    node = TestNode.builder().role(new EchoRole()).start();
    grpc = new GrpcCalls(vertx, node.grpcPort());
  }

  @AfterAll
  static void stop() {
    grpc.close();
    vertx.close();
    node.close();
  }

  @Test
  void aRotatedKeySignsNewTokensAndTheOldOnesWorkUntilTheOldKeyIsRetired() throws Exception {
    TokenService tokens = node.runtime().context().tokens();
    String before = node.adminToken();
    assertThat(kidOf(before)).isEqualTo(tokens.currentKid());
    String oldKid = tokens.currentKid();

    String newKid = SigningKeys.rotate(node.dataDir(), Clock.systemUTC());
    awaitCurrentKid(tokens, newKid);
    Principal admin = node.runtime().context().principals().find(AdminBootstrap.ADMIN_PRINCIPAL_ID)
      .await(30, TimeUnit.SECONDS).orElseThrow();
    String after = tokens.issue(admin, Duration.ofHours(1)).await(30, TimeUnit.SECONDS).token();
    assertThat(kidOf(after)).isEqualTo(newKid);
    assertThat(me(before)).isEqualTo(GrpcStatus.OK);
    assertThat(me(after)).isEqualTo(GrpcStatus.OK);

    SigningKeys.retire(node.dataDir(), oldKid);
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (me(before) == GrpcStatus.OK && System.nanoTime() < deadline) {
      Thread.sleep(200);
    }
    assertThat(me(before)).as("a token of the retired key").isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(me(after)).isEqualTo(GrpcStatus.OK);
  }

  @Test
  void theCurrentKeyCannotBeRetired() {
    String current = node.runtime().context().tokens().currentKid();
    try {
      SigningKeys.retire(node.dataDir(), current);
      throw new AssertionError("retiring the current key must fail");
    } catch (IllegalArgumentException | java.io.IOException expected) {
      assertThat(expected.getMessage()).contains("rotate");
    }
  }

  private static void awaitCurrentKid(TokenService tokens, String kid) throws InterruptedException {
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (!tokens.currentKid().equals(kid) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(tokens.currentKid()).isEqualTo(kid);
  }

  private static GrpcStatus me(String token) {
    return grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(token)).status();
  }

  private static String kidOf(String token) {
    String header = new String(Base64.getUrlDecoder().decode(token.substring(0, token.indexOf('.'))), StandardCharsets.UTF_8);
    return new io.vertx.core.json.JsonObject(header).getString("kid", SigningKeys.LEGACY_KID);
  }
}
