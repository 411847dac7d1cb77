package dev.conclave.e2e.cluster;

import dev.conclave.e2e.faults.GatewayOps;
import dev.conclave.e2e.support.NetnsCluster;
import dev.conclave.e2e.support.NodeList;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.Event;
import dev.conclave.proto.coven.GetEventsRequest;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three pods, each a node in its own network namespace with its own address, that find each other
 * only through DNS ({@code CONCLAVE_CLUSTER_K8S_DNS}, as on Kubernetes; {@link NetnsCluster}). Agents
 * connect to the pods' addresses; the pod holding the most agents is killed with SIGKILL, and the
 * test measures how long until each of its agents has served a request again on a survivor. The
 * time is printed, not asserted, beyond a generous bound; the client learns of each answer from
 * StreamEvents opened before the kill, as a waiting client does. Skipped where namespaces cannot be made
 * (not root, no ip or dnsmasq), except on CI.
 */
class NetnsClusterIT {

  private static final String SECRET = "e2e-netns-cluster-secret-0123456789abcdef0123";
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(2)).build();
  private static final Duration BOUND = Duration.ofSeconds(30);

  @Test
  void podsFindEachOtherByDnsAndTheAgentsOfAKilledPodServeAgainOnTheSurvivors() throws Exception {
    NetnsCluster.assumeSupported();
    long began = System.nanoTime();
    Vertx vertx = Vertx.vertx();
    GrpcClient grpc = GrpcClient.client(vertx);
    ExecutorService waiters = Executors.newFixedThreadPool(24);
    List<ResilientAgent> agents = new ArrayList<>();
    try (NetnsCluster cluster = NetnsCluster.up(3, "gateway", SECRET)) {
      try {
        scenario(cluster, vertx, grpc, waiters, agents);
      } catch (Throwable t) {
        cluster.dumpLogs(Path.of("target", "netns-cluster-logs"));
        throw t;
      } finally {
        for (ResilientAgent a : agents) {
          try {
            a.stop();
          } catch (RuntimeException notStarted) {
            // an agent whose start failed has nothing to stop
          }
        }
      }
    } finally {
      waiters.shutdownNow();
      grpc.close();
      vertx.close().await(10, TimeUnit.SECONDS);
      System.out.println("netns cluster: test took " + (System.nanoTime() - began) / 1_000_000 + " ms, teardown included");
    }
  }

  private static void scenario(NetnsCluster cluster, Vertx vertx, GrpcClient grpc, ExecutorService waiters,
                               List<ResilientAgent> agents) throws Exception {
    long startedAt = System.nanoTime();
    cluster.startAll();
    System.out.println("netns cluster: 3 pods ready in " + (System.nanoTime() - startedAt) / 1_000_000 + " ms");
    String admin = cluster.adminToken();
    Set<String> all = Set.of(cluster.pod(0).address(), cluster.pod(1).address(), cluster.pod(2).address());

    // discovery is DNS, as the pods see it: the headless name lists every pod, the Service the ready ones
    for (int i = 0; i < 3; i++) {
      assertThat(cluster.resolve(i, NetnsCluster.CLUSTER_DNS)).as("headless name in pod " + (i + 1)).isEqualTo(all);
      assertThat(cluster.resolve(i, NetnsCluster.SERVICE_DNS)).as("Service name in pod " + (i + 1)).isEqualTo(all);
      assertThat(cluster.node(i).logText()).contains("join=kubernetes-dns " + NetnsCluster.CLUSTER_DNS);
    }
    // one cluster: every node lists all three gateway nodes as up (the registry is cluster-wide shared data)
    for (int i = 0; i < 3; i++) {
      Map<String, Integer> nodes = awaitNodes(cluster, i, admin, n -> n.size() == 3);
      assertThat(nodes).as("gateway nodes as pod " + (i + 1) + " sees them")
        .containsOnlyKeys(cluster.pod(0).namespace(), cluster.pod(1).namespace(), cluster.pod(2).namespace());
    }

    // 24 agents, each first connecting to pod 1, 1, 2, 3 in turn: pod 1 holds the most
    List<SocketAddress> endpoints = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      endpoints.add(SocketAddress.inetSocketAddress(NetnsCluster.GRPC_PORT, cluster.pod(i).address()));
    }
    String token = cluster.agentToken("netns");
    int[] first = {0, 0, 1, 2};
    for (int i = 0; i < 24; i++) {
      String id = "netns-" + i;
      agents.add(ResilientAgent.at(vertx, grpc, endpoints, first[i % 4], token, id, 10)
        .answerWith(request -> GatewayOps.answerText(id, request)));
    }
    agents.forEach(a -> Await.await(a.start(), ClusterIT.STEP));
    // every agent serves before the kill, through the pod it is not on when possible
    ResilientClient warm = new ResilientClient(vertx, grpc, endpoints, 2, admin);
    List<CompletableFuture<Long>> before = new ArrayList<>();
    try (DoneWatch watch = new DoneWatch(grpc, endpoints.get(2), admin)) {
      for (int i = 0; i < agents.size(); i++) {
        Await.await(watch.follow("netns-" + i), ClusterIT.STEP);
      }
      for (int i = 0; i < agents.size(); i++) {
        int n = i;
        before.add(CompletableFuture.supplyAsync(() -> serve(grpc, watch, warm, endpoints.get(2), admin, "netns-" + n, "before-" + n,
          System.nanoTime(), Duration.ofSeconds(30)), waiters));
      }
      before.forEach(f -> assertThat(f.join()).as("a request before the kill").isPositive());
    }

    Map<String, Integer> held = awaitNodes(cluster, 0, admin, n -> n.values().stream().mapToInt(Integer::intValue).sum() == 24);
    String victim = held.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    int v = victim.equals(cluster.pod(0).namespace()) ? 0 : victim.equals(cluster.pod(1).namespace()) ? 1 : 2;
    List<ResilientAgent> moved = agents.stream().filter(a -> a.servedBy().equals(victim)).toList();
    assertThat(moved).as("agents on " + victim + " (" + held + ")").hasSize(held.get(victim));
    List<SocketAddress> survivors = new ArrayList<>(endpoints);
    survivors.remove(v);
    ResilientClient client = new ResilientClient(vertx, grpc, survivors, 0, admin);
    // the client learns of each answer as a client does, from StreamEvents opened before the kill
    DoneWatch watch = new DoneWatch(grpc, survivors.get(0), admin);
    for (ResilientAgent a : moved) {
      Await.await(watch.follow(a.agentId()), ClusterIT.STEP);
    }

    long killedAt = System.nanoTime();
    cluster.kill(v);
    List<CompletableFuture<long[]>> after = new ArrayList<>();
    for (ResilientAgent a : moved) {
      String id = agents.indexOf(a) + "";
      after.add(CompletableFuture.supplyAsync(() -> {
        long reconnected = awaitMoved(a, victim, killedAt);
        long served = serve(grpc, watch, client, survivors.get(0), admin, "netns-" + id, "after-" + id, killedAt, Duration.ofSeconds(60));
        return new long[] {reconnected, served};
      }, waiters));
    }
    List<long[]> times;
    try (watch) {
      times = after.stream().map(CompletableFuture::join).toList();
    }
    long maxReconnect = times.stream().mapToLong(t -> t[0]).max().orElseThrow();
    long maxServed = times.stream().mapToLong(t -> t[1]).max().orElseThrow();
    long minServed = times.stream().mapToLong(t -> t[1]).min().orElseThrow();
    System.out.println("netns failover: killed " + victim + " holding " + moved.size() + " of 24 agents (" + held + "); all "
      + "reconnected to a survivor " + maxReconnect + " ms after kill -9; all served a request again (done) after "
      + minServed + ".." + maxServed + " ms; client retries " + client.retries());
    assertThat(times).as("agents of " + victim + " that served again").hasSize(moved.size());
    assertThat(maxServed).as("ms until every agent of the killed pod served again").isLessThan(BOUND.toMillis());
    assertThat(agents).allSatisfy(a -> assertThat(a.servedBy()).isNotEqualTo(victim));
    for (int i = 0; i < 3; i++) {
      if (i != v) {
        assertThat(cluster.resolve(i, NetnsCluster.CLUSTER_DNS)).as("headless name after the kill").doesNotContain(cluster.pod(v).address());
      }
    }
  }

  /** Milliseconds from the kill until the agent is registered on another node. */
  private static long awaitMoved(ResilientAgent a, String victim, long killedAt) {
    long deadline = killedAt + TimeUnit.SECONDS.toNanos(60);
    while (a.servedBy().equals(victim) && System.nanoTime() < deadline) {
      sleep(20);
    }
    assertThat(a.servedBy()).as("node serving an agent of the killed pod").isNotEqualTo(victim);
    return (System.nanoTime() - killedAt) / 1_000_000;
  }

  /**
   * Sends one request to the agent's conversation and waits for its done to arrive on the watch;
   * a request that ended otherwise (sent while the agent was still being moved: the ledger says so)
   * is sent again. Returns the milliseconds from {@code since} until a request's done arrived.
   */
  private static long serve(GrpcClient grpc, DoneWatch watch, ResilientClient client, SocketAddress reader, String admin, String key,
                            String tag, long since, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    int attempt = 0;
    while (System.nanoTime() < deadline) {
      String id = Await.await(client.send(key, "ping " + tag, tag + "-" + attempt++), ClusterIT.STEP).getMessageId();
      Optional<String> terminal = Optional.empty();
      while (terminal.isEmpty() && System.nanoTime() < deadline) {
        Optional<Long> done = watch.doneAt(id, 2_000);
        if (done.isPresent()) {
          return Math.max(1, (done.get() - since) / 1_000_000);
        }
        terminal = terminal(grpc, reader, admin, key, id);
      }
      if (terminal.filter("done"::equals).isPresent()) {
        // done in the ledger though the watch missed it: counted from now, which is later, not earlier
        return Math.max(1, (System.nanoTime() - since) / 1_000_000);
      }
    }
    throw new AssertionError(key + ": no request done within " + limit.toSeconds() + " s");
  }

  /** The terminal event of request {@code id} in the conversation ("done", "error", "cancelled"), if it has one yet. */
  private static Optional<String> terminal(GrpcClient grpc, SocketAddress node, String admin, String key, String id) {
    try {
      List<Event> events = grpc.request(node, ClientServiceGrpcClient.GetEvents).compose(req -> {
        req.headers().set("authorization", "Bearer " + admin);
        req.timeout(5, TimeUnit.SECONDS);
        return req.send(GetEventsRequest.newBuilder().setConversationKey(key).setLimit(500).build());
      }).compose(resp -> resp.last()).await(10, TimeUnit.SECONDS).getEventsList();
      return events.stream()
        .filter(e -> List.of("done", "error", "cancelled").contains(e.getRawTransport()))
        .filter(e -> e.getRawPayloadRef().equals("request/" + id))
        .map(Event::getRawTransport).findFirst();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /** Polls a pod's {@code /api/v1/gateway/nodes} until {@code until} holds; returns node to agent count (nodes up). */
  private static Map<String, Integer> awaitNodes(NetnsCluster cluster, int pod, String admin,
                                                 java.util.function.Predicate<Map<String, Integer>> until) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    Map<String, Integer> nodes = Map.of();
    while (System.nanoTime() < deadline) {
      nodes = nodes(cluster, pod, admin);
      if (until.test(nodes)) {
        return nodes;
      }
      Thread.sleep(200);
    }
    return nodes;
  }

  private static Map<String, Integer> nodes(NetnsCluster cluster, int pod, String admin) {
    try {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + cluster.pod(pod).address() + ":"
          + NetnsCluster.HTTP_PORT + "/api/v1/gateway/nodes")).header("authorization", "Bearer " + admin)
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return Map.of();
      }
      return NodeList.up(new JsonObject(r.body()));
    } catch (Exception e) {
      return Map.of();
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
