package dev.conclave.platform.cluster;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.metrics.NodeMetrics;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.settings.ConfigException;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.vertx.core.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code CONCLAVE_CLUSTER_HOST} is where a member binds, not only what it advertises: two members on
 * one machine share the Hazelcast and event-bus ports on two loopback addresses and form one cluster
 * (with Hazelcast's default, bind-any, the second got "Port [5701] is already in use").
 */
class ClusterBindTest {

  @Test
  void twoMembersOnOneHostShareThePortsOnTheirOwnAddresses() throws Exception {
    int hazelcastPort = FreePorts.next();
    int eventBusPort = FreePorts.next();
    String members = "127.0.0.2:" + hazelcastPort + ",127.0.0.3:" + hazelcastPort;
    CompletableFuture<Vertx> startA = CompletableFuture.supplyAsync(() -> start("127.0.0.2", members, hazelcastPort, eventBusPort));
    CompletableFuture<Vertx> startB = CompletableFuture.supplyAsync(() -> start("127.0.0.3", members, hazelcastPort, eventBusPort));
    Vertx a = startA.get(90, TimeUnit.SECONDS);
    Vertx b = startB.get(90, TimeUnit.SECONDS);
    try {
      long deadline = System.currentTimeMillis() + 30_000;
      while (ClusterMembership.of(a).members().size() < 2 && System.currentTimeMillis() < deadline) {
        Thread.sleep(100);
      }
      assertThat(ClusterMembership.of(a).members()).as("one cluster of two").hasSize(2);
      // the port is free on another loopback address: nothing listens on every interface
      try (ServerSocket other = new ServerSocket()) {
        other.bind(new InetSocketAddress("127.0.0.4", hazelcastPort));
        assertThat(other.isBound()).isTrue();
      }
    } finally {
      Future.join(a.close(), b.close()).await(60, TimeUnit.SECONDS); // both closed, whichever fails
    }
  }

  @Test
  void aClusterPortAnotherProcessHoldsStopsStartUpNamingTheSetting() throws Exception {
    int hazelcastPort = FreePorts.next();
    int eventBusPort = FreePorts.next();
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", hazelcastPort));
      assertThat(failure("127.0.0.1", hazelcastPort, eventBusPort))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_CLUSTER_PORT: port " + hazelcastPort);
    }
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", eventBusPort));
      assertThat(failure("127.0.0.1", hazelcastPort, eventBusPort))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_EVENTBUS_PORT: port " + eventBusPort);
    }
  }

  /** What starting a member fails with (it must fail). */
  private static Throwable failure(String host, int hazelcastPort, int eventBusPort) throws Exception {
    ConclaveConfig config = ConclaveConfig.from(Map.of("CONCLAVE_CLUSTER_MEMBERS", host + ":" + hazelcastPort, "CONCLAVE_CLUSTER_HOST", host,
      "CONCLAVE_CLUSTER_PORT", Integer.toString(hazelcastPort), "CONCLAVE_EVENTBUS_PORT", Integer.toString(eventBusPort),
      "CONCLAVE_AUTH_SECRET", "bind-test-secret-0123456789abcdef0123"));
    Future<Vertx> starting = VertxBootstrap.create(config, new NodeMetrics());
    try {
      starting.await(90, TimeUnit.SECONDS).close();
    } catch (Exception e) {
      if (starting.failed()) {
        return starting.cause(); // await threw it as it is
      }
      throw e;
    }
    throw new AssertionError("the member started although a port was taken");
  }

  private static Vertx start(String host, String members, int hazelcastPort, int eventBusPort) {
    ConclaveConfig config = ConclaveConfig.from(Map.of("CONCLAVE_CLUSTER_MEMBERS", members, "CONCLAVE_CLUSTER_HOST", host,
      "CONCLAVE_CLUSTER_PORT", Integer.toString(hazelcastPort), "CONCLAVE_EVENTBUS_PORT", Integer.toString(eventBusPort),
      "CONCLAVE_AUTH_SECRET", "bind-test-secret-0123456789abcdef0123"));
    try {
      return dev.conclave.platform.testing.Await.await(VertxBootstrap.create(config, new NodeMetrics()), java.time.Duration.ofSeconds(90)); // a pool thread: see Await
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
