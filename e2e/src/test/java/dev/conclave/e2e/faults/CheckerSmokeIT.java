package dev.conclave.e2e.faults;

import dev.conclave.e2e.cluster.ResilientClient;
import dev.conclave.e2e.support.LocalCluster;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault-test kit with no fault: two nodes (gateway and coordinator) on 127.0.0.1, gateway
 * traffic ({@link GatewayLoad}) and swarm traffic ({@link SwarmLoad}) at once, then both checkers
 * on what was recorded and what PostgreSQL holds. Every invariant must hold; the verdicts are
 * printed.
 */
class CheckerSmokeIT {

  private static final String SECRET = "e2e-checker-smoke-secret-0123456789abcdef0123";

  @Test
  void aFaultFreeRunSatisfiesEveryGatewayAndSwarmInvariant() throws Exception {
    long began = System.nanoTime();
    try (LocalCluster cluster = new LocalCluster(2, "gateway,coordinator", SECRET, 5, Map.of("CONCLAVE_SWARM_RATE_LIMITS", "false"))) {
      cluster.startAll();
      Vertx vertx = Vertx.vertx();
      GrpcClient grpc = GrpcClient.client(vertx);
      try {
        String admin = cluster.adminToken();
        String agentToken = cluster.agentToken("smoke");
        List<SocketAddress> grpcEndpoints = ResilientClient.local(cluster.grpcPorts());
        List<SocketAddress> httpEndpoints = IntStream.range(0, cluster.size())
          .mapToObj(i -> SocketAddress.inetSocketAddress(cluster.httpPort(i), "127.0.0.1")).toList();
        History gateway = new History();
        History swarm = new History();
        System.out.println("checker smoke: cluster up after " + ms(began) + " ms");

        GatewayLoad gatewayLoad = GatewayLoad.start(vertx, grpc, grpcEndpoints, admin, agentToken,
          GatewayLoad.Settings.of(20, 30, 50).withPrefix("smoke"), gateway);
        SwarmLoad swarmLoad = SwarmLoad.start(vertx, httpEndpoints, admin, SwarmLoad.Settings.of(200, 8).withPrefix("smoke-task"), swarm);
        Thread.sleep(15_000);
        boolean settled = gatewayLoad.stop(Duration.ofSeconds(20));
        boolean swarmDone = swarmLoad.awaitDone(Duration.ofSeconds(20));
        swarmLoad.stop(Duration.ofSeconds(5));
        System.out.println("checker smoke: load " + gatewayLoad.counts() + ", settled=" + settled + ", swarm done=" + swarmDone);
        System.out.println(gateway.summary());
        System.out.println(swarm.summary());

        long checking = System.nanoTime();
        Verdict gatewayVerdict = GatewayChecker.check(gateway, cluster.db());
        Verdict swarmVerdict = SwarmChecker.check(swarm, cluster.db());
        System.out.println(gatewayVerdict);
        System.out.println(swarmVerdict);
        System.out.println("checker smoke: checked in " + ms(checking) + " ms");

        assertThat(settled).as("every accepted message ended and was seen by its follower").isTrue();
        assertThat(swarmDone).as("the claimers ran out of tasks").isTrue();
        gatewayVerdict.assertValid();
        swarmVerdict.assertValid();
        assertThat(gatewayVerdict.invariant(RequestEndings.NAME).orElseThrow().get("done")).isGreaterThan(300);
        assertThat(swarmVerdict.invariant(Completions.NAME).orElseThrow().get("completesAcked")).isEqualTo(200);
      } catch (Throwable t) {
        cluster.dumpLogs(Path.of("target", "checker-smoke-logs"));
        throw t;
      } finally {
        grpc.close();
        vertx.close().await(10, TimeUnit.SECONDS);
        System.out.println("checker smoke: took " + ms(began) + " ms");
      }
    }
  }

  private static long ms(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }
}
