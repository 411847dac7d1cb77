package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One signed call replayed at the same moment to two nodes of one cluster (one database, one auth
 * secret): exactly one is accepted, every time.
 */
class SshReplayAcrossClusterTest {

  private static final String SECRET = "ssh-replay-cluster-test-secret-0123456789abcdef";
  private static final int ROUNDS = 20;

  private static TestNode a;
  private static TestNode b;
  private static Vertx vertx;
  private static SshCalls calls;

  @BeforeAll
  static void start() {
    PgUrl db = TestDatabase.freshDatabase();
    int hzA = FreePorts.next();
    int hzB = FreePorts.next();
    String members = "127.0.0.1:" + hzA + ",127.0.0.1:" + hzB;
    CompletableFuture<TestNode> first = CompletableFuture.supplyAsync(() -> node(db, members, hzA, "ssh-a"));
    CompletableFuture<TestNode> second = CompletableFuture.supplyAsync(() -> node(db, members, hzB, "ssh-b"));
    a = first.join();
    b = second.join();
    vertx = Vertx.vertx();
    calls = new SshCalls(vertx);
  }

  private static TestNode node(PgUrl db, String members, int hazelcastPort, String nodeId) {
    return TestNode.builder()
      .role(new EchoRole())
      .database(db)
      .env("CONCLAVE_NODE_ID", nodeId)
      .env("CONCLAVE_CLUSTER_MEMBERS", members)
      .env("CONCLAVE_CLUSTER_HOST", "127.0.0.1")
      .env("CONCLAVE_CLUSTER_PORT", Integer.toString(hazelcastPort))
      .env("CONCLAVE_EVENTBUS_PORT", Integer.toString(FreePorts.next()))
      .env("CONCLAVE_AUTH_SECRET", SECRET)
      .start();
  }

  @AfterAll
  static void stop() throws Exception {
    calls.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    CompletableFuture.allOf(CompletableFuture.runAsync(b::close), CompletableFuture.runAsync(a::close)).join();
  }

  @Test
  void aReplayedNonceSentToTwoNodesAtOnceIsAcceptedExactlyOnce() {
    assertThat(a.runtime().vertx().isClustered()).isTrue();
    for (AgentKeys.Kind kind : List.of(AgentKeys.Kind.ED25519, AgentKeys.Kind.ECDSA_P256)) {
      AgentKeys agent = AgentKeys.generate(kind, "replayed " + kind);
      Principal principal = Await.await(a.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.AGENT,
        "replayed", PrincipalStatus.APPROVED, List.of(), Optional.of(agent.fingerprint())));
      for (int round = 0; round < ROUNDS; round++) {
        Map<String, String> headers = agent.headers(Instant.now().getEpochSecond(), agent.nonce());
        Future<GrpcCalls.Outcome<MeResponse>> viaA = calls.getMe(a.grpcPort(), headers);
        Future<GrpcCalls.Outcome<MeResponse>> viaB = calls.getMe(b.grpcPort(), headers);
        List<GrpcCalls.Outcome<MeResponse>> outcomes = List.of(Await.await(viaA), Await.await(viaB));

        assertThat(outcomes).as("round " + round + " " + kind).filteredOn(o -> o.status() == GrpcStatus.OK).hasSize(1)
          .allSatisfy(o -> assertThat(o.response().orElseThrow().getPrincipalId()).isEqualTo(principal.id().toString()));
        assertThat(outcomes).as("round " + round + " " + kind).filteredOn(o -> o.status() != GrpcStatus.OK).hasSize(1)
          .allSatisfy(o -> {
            assertThat(o.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
            assertThat(o.message()).startsWith("ssh_nonce_reused:");
          });
      }
      assertThat(SshAgentAuthTest.nonceRows(b, agent.fingerprint())).isEqualTo(ROUNDS);
    }
  }

  @Test
  void expiredNonceRowsAreSweptInBoundedBatches() {
    NonceStore store = new NonceStore(b.runtime().context().pool());
    String fp = AgentKeys.ed25519(null).fingerprint();
    Instant now = Instant.now();
    for (int i = 0; i < 3; i++) {
      assertThat(Await.await(store.use(fp, "old-" + i, now.minus(NonceStore.RETENTION).minusSeconds(60)))).isTrue();
    }
    assertThat(Await.await(store.use(fp, "recent", now.minusSeconds(30)))).isTrue();
    assertThat(Await.await(store.use(fp, "recent", now.minusSeconds(30)))).as("a nonce is used once").isFalse();

    assertThat(Await.await(store.deleteSignedBefore(now.minus(NonceStore.RETENTION)))).isEqualTo(3);
    assertThat(SshAgentAuthTest.nonceRows(a, fp)).isEqualTo(1);
    assertThat(Await.await(store.deleteSignedBefore(now.minus(NonceStore.RETENTION)))).isZero();
  }
}
