package dev.conclave.e2e.cluster;

import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static dev.conclave.platform.testing.Await.await;

/**
 * A storm, shared by {@link ScaleBench} and {@code ScaleStormIT}: 3 node processes over one
 * PostgreSQL, {@link StormFleet}'s agents spread evenly over them, {@link StormClient}s keeping a
 * steady load from before to after, and kill -9 of node-1, which holds a third of the agents.
 * Each moved agent is sent one probe as soon as it is registered on a survivor, so that every one
 * of them serves a request. Every phase has a limit; past it the run fails with what it saw.
 */
final class StormRun {

  /** What to run. */
  record Settings(int agents, int clients, Duration before, Duration phaseLimit, Map<String, String> nodeEnv) {
  }

  /** What the storm did. */
  record Result(int agents, int moved, long registeredMs, long servingMs, StormLedger.Verdict verdict, StormLog.Window before,
                StormLog.Window storm, int clientRetries, int agentRetries) {

    String lastLine() {
      return String.format("scale: %d agents, moved %d: registered in %d ms, serving in %d ms, lost %d, duplicated %d, storm p99 %.0f ms",
        agents, moved, registeredMs, servingMs, verdict.lost(), verdict.duplicated(), storm.p99());
    }
  }

  private static final String LOST = "node-1";

  private final Settings settings;
  private final PrintStream out;

  StormRun(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs the storm; the cluster, agents, clients and Vert.x are closed on every path. */
  Result run() throws Exception {
    Map<String, String> env = new HashMap<>();
    // one principal's agents: the per-principal limits (1,000 connections per node by default) would refuse them
    env.put("CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL", Integer.toString(settings.agents() * 2 + 1000));
    env.put("CONCLAVE_MAX_CALLS_PER_PRINCIPAL", Integer.toString(settings.agents() * 2 + 1000));
    env.putAll(settings.nodeEnv());
    try (Cluster cluster = new Cluster(3, env)) {
      long t0 = System.nanoTime();
      cluster.startAll();
      out.printf("cluster ready in %d ms%n", ms(t0));
      String admin = cluster.adminToken();
      String token = cluster.agentToken("storm");
      Vertx vertx = Vertx.vertx();
      try {
        return storm(cluster, vertx, admin, token);
      } finally {
        try {
          vertx.close().await(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          out.println("Vert.x did not close within 30 s");
        }
      }
    }
  }

  private Result storm(Cluster cluster, Vertx vertx, String admin, String token) throws Exception {
    int n = settings.agents();
    StormFleet fleet = new StormFleet(vertx, cluster.grpcPorts(), token, n);
    long t0 = System.nanoTime();
    await(fleet.start(64), limit(n), "start " + n + " agents");
    out.printf("%d agents registered in %d ms (64 at a time): %s%n", n, ms(t0), spread(fleet));

    List<SocketAddress> endpoints = ResilientClient.local(cluster.grpcPorts());
    StormLog log = new StormLog();
    List<GrpcClient> grpcs = new ArrayList<>();
    List<StormClient> clients = new ArrayList<>();
    for (int c = 0; c < settings.clients(); c++) {
      List<String> mine = new ArrayList<>();
      for (int i = c; i < n; i += settings.clients()) {
        mine.add(StormFleet.id(i));
      }
      GrpcClient grpc = GrpcClient.client(vertx);
      grpcs.add(grpc);
      clients.add(new StormClient(vertx, grpc, endpoints, admin, c, mine, log));
    }
    try {
      return underLoad(cluster, vertx, admin, fleet, log, clients, endpoints);
    } finally {
      for (StormClient c : clients) {
        c.stop();
      }
      try {
        fleet.stop().await(30, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        out.println("the agents did not all stop within 30 s; closing Vert.x under them");
      }
      grpcs.forEach(GrpcClient::close);
    }
  }

  private Result underLoad(Cluster cluster, Vertx vertx, String admin, StormFleet fleet, StormLog log, List<StormClient> clients,
                           List<SocketAddress> endpoints) throws Exception {
    int n = settings.agents();
    clients.forEach(StormClient::start);
    Thread.sleep(3000);
    long beforeStart = System.nanoTime();
    Thread.sleep(settings.before().toMillis());
    out.printf("steady load: %d clients, %d round trips so far%n", clients.size(), log.completed());

    // who is on the node about to die, just before it dies
    boolean[] moved = new boolean[n];
    int movedCount = 0;
    for (int i = 0; i < n; i++) {
      moved[i] = fleet.servedBy(i).equals(LOST);
      movedCount += moved[i] ? 1 : 0;
    }
    GrpcClient probes = GrpcClient.client(vertx);
    AtomicBoolean[] probed = new AtomicBoolean[n];
    for (int i = 0; i < n; i++) {
      probed[i] = new AtomicBoolean();
    }
    List<SocketAddress> survivors = endpoints.subList(1, endpoints.size());
    AtomicInteger probeFailures = new AtomicInteger();
    fleet.onRegistered(i -> {
      String on = fleet.servedBy(i);
      if (moved[i] && !on.equals(LOST) && probed[i].compareAndSet(false, true)) {
        probe(vertx, probes, survivors, admin, i, log, 0, probeFailures);
      }
    });
    Map<String, dev.conclave.e2e.support.NodeProcess> survivorNodes = new java.util.LinkedHashMap<>();
    survivorNodes.put("node-2", cluster.node(1));
    survivorNodes.put("node-3", cluster.node(2));
    NodeGauges gauges = new NodeGauges(survivorNodes, NodeGauges.postmaster(), ProcessHandle.current().pid());
    gauges.start();
    fleet.lose(LOST);
    long killedAt = System.nanoTime();
    cluster.node(0).kill();
    out.printf("kill -9 of %s, which held %d agents%n", LOST, movedCount);

    waitFor(() -> allMoved(fleet, moved, i -> fleet.registeredAt(i) > killedAt && !fleet.servedBy(i).isEmpty()
      && !fleet.servedBy(i).equals(LOST)), "every moved agent registered on a survivor", fleet, moved, killedAt);
    long registeredMs = latest(moved, fleet::registeredAt, killedAt);
    out.printf("every moved agent registered on a survivor %d ms after the kill%n", registeredMs);
    waitFor(() -> allMoved(fleet, moved, i -> fleet.answeredAt(i) > killedAt), "every moved agent serving", fleet, moved, killedAt);
    long servingMs = latest(moved, fleet::answeredAt, killedAt);
    long stormEnd = Math.max(System.nanoTime(), killedAt + TimeUnit.SECONDS.toNanos(5));
    gauges.stop();
    out.printf("every moved agent served a request %d ms after the kill%n", servingMs);
    Thread.sleep(Math.max(0, (stormEnd - System.nanoTime()) / 1_000_000) + 3000);

    for (StormClient c : clients) {
      c.stop();
    }
    Future<Void> drained = Future.all(clients.stream().map(StormClient::stop).toList()).mapEmpty();
    await(drained, Duration.ofSeconds(StormClient.GIVE_UP_SECONDS + 30), "the clients' last requests");
    probes.close();

    StormLedger.Verdict verdict = StormLedger.check(cluster.db(), log.sent(), log.accepted(), fleet.deliveries());
    long settleUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (verdict.lost() > 0 && System.nanoTime() < settleUntil) {
      Thread.sleep(1000);
      verdict = StormLedger.check(cluster.db(), log.sent(), log.accepted(), fleet.deliveries());
    }
    Result result = new Result(n, movedCount, registeredMs, servingMs, verdict, log.within(beforeStart, killedAt),
      log.window(killedAt, stormEnd), log.retries(), fleet.retries());
    report(result, fleet, moved, killedAt, gauges, log, probeFailures.get());
    return result;
  }

  /** One request to moved agent {@code i} on a survivor; retried on the other while the survivors settle. */
  private static void probe(Vertx vertx, GrpcClient grpc, List<SocketAddress> survivors, String admin, int i, StormLog log, int attempt,
                            AtomicInteger failures) {
    String key = "probe-" + StormFleet.id(i);
    log.sent(key);
    grpc.request(survivors.get((i + attempt) % survivors.size()), ClientServiceGrpcClient.SendMessage)
      .compose(req -> {
        req.headers().set("authorization", "Bearer " + admin);
        req.timeout(30, TimeUnit.SECONDS);
        return req.send(ClientSendMessageRequest.newBuilder().setConversationKey(StormFleet.id(i)).setContent("probe " + i)
          .setIdempotencyKey(key).build());
      })
      .compose(resp -> resp.last())
      .onSuccess(r -> log.accepted(key))
      .onFailure(err -> {
        failures.incrementAndGet();
        if (attempt < 10) {
          vertx.setTimer(500, t -> probe(vertx, grpc, survivors, admin, i, log, attempt + 1, failures));
        }
      });
  }

  private void report(Result r, StormFleet fleet, boolean[] moved, long killedAt, NodeGauges gauges, StormLog log, int probeFailures) {
    out.println();
    out.printf("registrations of moved agents per second after the kill: %s%n", perSecond(moved, fleet::registeredAt, killedAt));
    out.printf("moved agents first serving, per second after the kill:   %s%n", perSecond(moved, fleet::answeredAt, killedAt));
    out.printf("agents' reconnection attempts: %d; why: %s%n", r.agentRetries(), causes(fleet));
    out.printf("survivors during the storm (%.1f s from the kill until every moved agent served):%n", gauges.seconds());
    gauges.cores().forEach((part, cores) -> out.printf("  %-26s %.2f cores%n", part, cores));
    gauges.threadSplit().forEach((part, split) -> {
      StringBuilder b = new StringBuilder();
      split.forEach((g, share) -> b.append(String.format(" %s %.0f %%,", g, share * 100)));
      out.printf("  %-26s%s%n", part + " CPU split:", b.substring(0, Math.max(0, b.length() - 1)));
    });
    gauges.peaks().forEach((node, p) -> out.printf("  %s: %s%n", node, p));
    out.printf("clients' round trips before the kill (started and ended before it): %s%n", r.before());
    out.printf("clients' round trips during the storm: %s%n", r.storm());
    out.printf("client retries on another node: %d %s; requests given up: %d %s; probe sends that failed: %d%n", r.clientRetries(),
      log.retryReasons(), log.gaveUp().size(), log.gaveUp().stream().limit(3).toList(), probeFailures);
    StormLedger.Verdict v = r.verdict();
    out.printf("requests accepted %d: lost %d %s, duplicated %d %s, ended with an error %d%n", v.accepted(), v.lost(), v.lostExamples(),
      v.duplicated(), v.duplicatedExamples(), v.endedWithError());
  }

  private static String causes(StormFleet fleet) {
    Map<String, Integer> sorted = new TreeMap<>();
    fleet.retryCauses().forEach((k, v) -> sorted.put(k, v.get()));
    return sorted.toString();
  }

  private static String perSecond(boolean[] moved, java.util.function.IntToLongFunction at, long since) {
    TreeMap<Long, Integer> buckets = new TreeMap<>();
    for (int i = 0; i < moved.length; i++) {
      if (moved[i] && at.applyAsLong(i) > since) {
        buckets.merge((at.applyAsLong(i) - since) / 1_000_000_000L, 1, Integer::sum);
      }
    }
    return buckets.toString();
  }

  private static boolean allMoved(StormFleet fleet, boolean[] moved, java.util.function.IntPredicate done) {
    for (int i = 0; i < moved.length; i++) {
      if (moved[i] && !done.test(i)) {
        return false;
      }
    }
    return true;
  }

  private static long latest(boolean[] moved, java.util.function.IntToLongFunction at, long since) {
    long last = since;
    for (int i = 0; i < moved.length; i++) {
      if (moved[i]) {
        last = Math.max(last, at.applyAsLong(i));
      }
    }
    return (last - since) / 1_000_000;
  }

  private void waitFor(BooleanSupplier done, String what, StormFleet fleet, boolean[] moved, long since) throws InterruptedException {
    long deadline = System.nanoTime() + settings.phaseLimit().toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        int registered = 0;
        int serving = 0;
        int total = 0;
        for (int i = 0; i < moved.length; i++) {
          if (moved[i]) {
            total++;
            registered += fleet.registeredAt(i) > since && !fleet.servedBy(i).isEmpty() ? 1 : 0;
            serving += fleet.answeredAt(i) > since ? 1 : 0;
          }
        }
        throw new IllegalStateException("not " + what + " within " + settings.phaseLimit().toSeconds() + " s of the kill: of "
          + total + " moved agents " + registered + " registered, " + serving + " served; reconnection attempts " + fleet.retries()
          + ", why: " + causes(fleet));
      }
      Thread.sleep(20);
    }
  }

  private static String spread(StormFleet fleet) {
    Map<String, Integer> on = new TreeMap<>();
    for (int i = 0; i < fleet.size(); i++) {
      on.merge(fleet.servedBy(i).isEmpty() ? "(none)" : fleet.servedBy(i), 1, Integer::sum);
    }
    return on.toString();
  }

  private Duration limit(int n) {
    return settings.phaseLimit().plusMillis(n * 20L);
  }

  private static long ms(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }
}
