package dev.conclave.platform.cluster;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.metrics.NodeMetrics;
import dev.conclave.platform.testing.FreePorts;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Membership names members the way the rest of the cluster does, and tells of one that leaves. */
class ClusterMembershipTest {

  private static final String SECRET = "membership-test-secret-0123456789abcdef";

  @Test
  void aSingleNodeIsAClusterOfOne() {
    Vertx vertx = Vertx.vertx();
    try {
      ClusterMembership m = ClusterMembership.of(vertx);
      assertThat(m.localMember()).isEqualTo(ClusterMembership.STANDALONE);
      assertThat(m.members()).containsExactly(ClusterMembership.STANDALONE);
      assertThat(m.isMember(ClusterMembership.STANDALONE)).isTrue();
    } finally {
      vertx.close();
    }
  }

  @Test
  void aLeavingMemberIsReportedByTheIdItWasKnownBy() throws Exception {
    int portA = FreePorts.next();
    int portB = FreePorts.next();
    String members = "127.0.0.1:" + portA + ",127.0.0.1:" + portB;
    CompletableFuture<Vertx> startA = CompletableFuture.supplyAsync(() -> start(members, portA));
    CompletableFuture<Vertx> startB = CompletableFuture.supplyAsync(() -> start(members, portB));
    Vertx a = startA.get(60, TimeUnit.SECONDS);
    Vertx b = startB.get(60, TimeUnit.SECONDS);
    try {
      ClusterMembership ma = ClusterMembership.of(a);
      ClusterMembership mb = ClusterMembership.of(b);
      String idOfB = mb.localMember();
      assertThat(ma.members()).contains(ma.localMember(), idOfB);
      assertThat(ma.isMember(idOfB)).isTrue();
      CompletableFuture<String> left = new CompletableFuture<>();
      ma.onLeave(left::complete);
      b.close().await(30, TimeUnit.SECONDS);
      assertThat(left.get(30, TimeUnit.SECONDS)).isEqualTo(idOfB);
      assertThat(ma.isMember(idOfB)).isFalse();
    } finally {
      a.close().await(30, TimeUnit.SECONDS);
    }
  }

  private static Vertx start(String members, int port) {
    ConclaveConfig config = ConclaveConfig.from(Map.of("CONCLAVE_CLUSTER_MEMBERS", members, "CONCLAVE_CLUSTER_HOST", "127.0.0.1",
      "CONCLAVE_CLUSTER_PORT", Integer.toString(port), "CONCLAVE_EVENTBUS_PORT", Integer.toString(FreePorts.next()),
      "CONCLAVE_AUTH_SECRET", SECRET));
    try {
      return dev.conclave.platform.testing.Await.await(VertxBootstrap.create(config, new NodeMetrics()), java.time.Duration.ofSeconds(60)); // a pool thread: see Await
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
