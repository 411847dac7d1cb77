package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An SSH-signed call is verified asynchronously (the principal and the nonce are in PostgreSQL):
 * a call its client cancels meanwhile must not keep its place among the principal's calls
 * (issue 40, finding 4).
 */
class SshCallLimitsTest {

  private static final int MAX_CALLS = 2;

  private static Vertx vertx;
  private static TestNode node;
  private static SshCalls calls;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole()).env("CONCLAVE_MAX_CALLS_PER_PRINCIPAL", String.valueOf(MAX_CALLS)).start();
    vertx = Vertx.vertx();
    calls = new SshCalls(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    calls.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void callsCancelledWhileTheirSignatureIsCheckedGiveTheirPlaceBack() throws Exception {
    AgentKeys agent = AgentKeys.ed25519("hasty");
    Await.await(node.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.AGENT, "hasty",
      PrincipalStatus.APPROVED, List.of(), Optional.of(agent.fingerprint())));
    GrpcClient client = GrpcClient.client(vertx);
    try {
      for (int i = 0; i < 60; i++) {
        var request = Await.await(client.request(SocketAddress.inetSocketAddress(node.grpcPort(), "127.0.0.1"), ClientServiceGrpcClient.GetMe));
        agent.headers().forEach(request.headers()::set);
        Await.await(request.write(com.google.protobuf.Empty.getDefaultInstance()));
        // the cancel comes while the node looks the key and the nonce up, or just before, or just after
        Thread.sleep(i % 4);
        request.cancel();
      }
    } finally {
      client.close();
    }
    // once the cancels are read every place is free again: a call is admitted
    long deadline = System.currentTimeMillis() + 10_000;
    GrpcCalls.Outcome<MeResponse> me = calls.getMeNow(node.grpcPort(), agent.headers());
    while (me.status() != GrpcStatus.OK && System.currentTimeMillis() < deadline) {
      Thread.sleep(200);
      me = calls.getMeNow(node.grpcPort(), agent.headers());
    }
    assertThat(me.status()).as(me.message()).isEqualTo(GrpcStatus.OK);
  }
}
