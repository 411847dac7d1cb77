package dev.conclave.e2e.faults;

import dev.conclave.e2e.cluster.ResilientAgent;
import dev.conclave.e2e.support.NetnsCluster;
import io.vertx.core.Vertx;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The faults of issue 15 against three pods (network namespaces, DNS discovery, one spare for the
 * rolling restart; {@link NetnsCluster}) running the gateway and the swarm coordinator on a
 * PostgreSQL the test owns. Each scenario runs its own load with every step recorded
 * ({@link GatewayLoad}, {@link SwarmLoad}), injects its fault, stops the load and has the checkers
 * ({@link GatewayChecker}, {@link SwarmChecker}) judge the history against PostgreSQL; the verdicts
 * and the measured times are printed (a summary at the end), and an invalid verdict fails the
 * scenario. Times are bounded generously, not asserted at their targets (docs/operations.md
 * records the measurements). The pods are shared by the scenarios, which run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultScenariosIT {

  private static final String SECRET = "e2e-fault-scenarios-secret-0123456789abcdef012345";
  private static final Duration PRE_STOP = Duration.ofSeconds(2);
  /** The manifests' 45 s for a 5 s preStop and a 20 s drain, scaled to the pods' 8 s drain (NetnsCluster). */
  private static final Duration TERMINATION_GRACE = Duration.ofSeconds(20);
  private static final Duration PARTITION = Duration.ofSeconds(20);
  private static final Duration OUTAGE = Duration.ofSeconds(10);
  /** On CI every fault must be made for real (.ci/run installs what they need); elsewhere a missing tool is reported. */
  private static final boolean CI = "true".equalsIgnoreCase(System.getenv("CI"));

  private final Map<String, String> summary = new TreeMap<>();
  private NetnsCluster cluster;
  private Vertx vertx;
  private GrpcClient grpc;
  private PodProbes probes;
  private String admin;
  private String agentToken;

  @BeforeAll
  void pods() throws Exception {
    NetnsCluster.assumeSupported();
    long began = System.nanoTime();
    cluster = NetnsCluster.up(3, "gateway,coordinator", SECRET,
      new NetnsCluster.Options(1, true, Map.of("CONCLAVE_SWARM_RATE_LIMITS", "false")));
    cluster.startAll();
    vertx = Vertx.vertx();
    grpc = GrpcClient.client(vertx);
    admin = cluster.adminToken();
    agentToken = cluster.agentToken("faults");
    probes = new PodProbes(cluster, grpc, admin);
    say("3 pods ready in " + ms(began) + " ms");
  }

  @AfterAll
  void teardown() throws Exception {
    if (cluster == null) {
      return;
    }
    try {
      cluster.dumpLogs(Path.of("target", "fault-scenarios-logs"));
      grpc.close();
      vertx.close().await(10, TimeUnit.SECONDS);
    } finally {
      cluster.close();
      say("summary:\n  " + summary.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining("\n  ")));
    }
  }

  /** Scenario 1: 300 agents, 30 messages/s, every pod replaced one at a time; no client call fails after its retries. */
  @Test
  @Order(1)
  void rollingRestartOfEveryPodFailsNoClientCall() {
    History history = new History();
    GatewayLoad load = GatewayLoad.start(vertx, grpc, probes.grpcEndpoints(), admin, agentToken,
      GatewayLoad.Settings.of(300, 30, 50).withPrefix("roll"), history);
    PodProbes.sleep(5_000);
    long began = System.nanoTime();
    List<NetnsCluster.RolloutStep> steps = cluster.rollingRestart(PRE_STOP, TERMINATION_GRACE);
    long took = ms(began);
    PodProbes.sleep(5_000);
    boolean settled = load.stop(Duration.ofSeconds(60));
    Map<String, Long> counts = load.counts();
    long failed = counts.get("sent") - counts.get("accepted");
    Verdict verdict = GatewayChecker.check(history, cluster.database());
    keepIfInvalid("rolling-gateway", verdict, history);
    say("rolling restart of 3 pods took " + took + " ms: " + steps.stream().map(s -> s.started() + " ready in "
      + s.ready().toMillis() + " ms, then " + s.stopped() + " stopped in " + s.stop().toMillis() + " ms (exit " + s.exitCode() + ")")
      .collect(Collectors.joining("; ")));
    say("rolling restart load " + counts + ", settled " + settled + "\n" + verdict);
    summary.put("1 rolling restart", took + " ms for 3 pods, " + counts.get("sent") + " calls, " + failed + " failed after retries, "
      + counts.get("clientRetries") + " retries; verdict " + (verdict.valid() ? "valid" : "INVALID " + verdict.failed()));
    assertThat(steps).extracting(NetnsCluster.RolloutStep::exitCode).as("each old pod left within its grace period").containsOnly(0);
    assertThat(failed).as("client calls that failed after their retries").isZero();
    verdict.assertValid();
    assertThat(load.agents()).as("every agent moved to a new pod").allSatisfy(a -> assertThat(a.connections()).isGreaterThan(1));
  }

  /** Scenario 3: one pod cut off from the other two for 20 s, both ways and then one way, under gateway and swarm load. */
  @Test
  @Order(2)
  void aPartitionedPodLosesNothingAndPresenceConvergesAfterHealing() {
    Traffic traffic = Traffic.start(this, "part");
    GatewayLoad load = traffic.gateway();
    PodProbes.sleep(3_000);
    List<Integer> pods = cluster.running();
    List<String> lines = new ArrayList<>();
    for (boolean bothWays : List.of(true, false)) {
      int minority = pods.get(bothWays ? 0 : 1);
      String side = cluster.pod(minority).namespace();
      Map<String, String> before = PodProbes.truth(load.agents());
      Set<String> held = before.entrySet().stream().filter(e -> e.getValue().equals(side)).map(Map.Entry::getKey).collect(Collectors.toSet());
      long cutAt = System.nanoTime();
      cluster.partition(minority, bothWays);
      Map<Integer, Integer> notReady = new TreeMap<>();
      Map<Integer, Integer> membersSeen = new TreeMap<>();
      while (System.nanoTime() - cutAt < PARTITION.toNanos()) {
        for (int p : pods) {
          notReady.merge(p, probes.ready(p) == 200 ? 0 : 1, Integer::sum);
          membersSeen.merge(p, probes.nodes(p).size(), Math::min);
        }
        PodProbes.sleep(1_000);
      }
      long healAt = System.nanoTime();
      long answeredDuring = traffic.gatewayHistory().observations(GatewayOps.ANSWER).stream()
        .filter(o -> held.contains(o.str(GatewayOps.AGENT)) && o.nanos() > cutAt && o.nanos() < healAt).count();
      Map<String, String> during = PodProbes.truth(load.agents());
      cluster.heal();
      Optional<Duration> converged = probes.awaitConverged(pods, load.agents(), healAt, Duration.ofSeconds(60));
      String line = (bothWays ? "both ways" : "one way") + ": " + side + " (holding " + held.size() + " agents) cut for "
        + PARTITION.toSeconds() + " s; its agents answered " + answeredDuring + " requests meanwhile; agents that moved "
        + moved(before, during) + "; not-ready samples per pod " + notReady + "; fewest members seen per pod " + membersSeen
        + "; presence converged " + converged.map(d -> d.toMillis() + " ms").orElse("NOT within 60 s") + " after healing";
      say("partition " + line);
      lines.add(line);
      summary.put("3 partition " + (bothWays ? "both ways" : "one way"), "presence converged "
        + converged.map(d -> d.toMillis() + " ms").orElse("never") + " after healing; minority agents answered " + answeredDuring);
      assertThat(converged).as("presence converged after healing (" + line + "); now: " + probes.describe(pods, load.agents())).isPresent();
      assertThat(converged.get()).as("time to converge after healing").isLessThan(Duration.ofSeconds(30));
      assertThat(answeredDuring).as("agents on the cut-off pod kept working (ARCHITECTURE.md, Split brain)").isPositive();
    }
    Verdicts verdicts = traffic.stopAndCheck("partition");
    summary.put("3 partition verdicts", verdicts.line());
    verdicts.assertValid();
  }

  /** Scenario 4: PostgreSQL stopped for 10 s under load, then a crash (immediate shutdown) and restart. */
  @Test
  @Order(3)
  void aDatabaseOutageMakesPodsUnreadyAndLosesNothingAcked() {
    Traffic traffic = Traffic.start(this, "db");
    PodProbes.sleep(3_000);
    List<Integer> pods = cluster.running();

    long stoppedAt = System.nanoTime();
    cluster.postgres().stop();
    // readiness sampled on its own thread, every pod at once; direct calls (no retry) on another
    Map<String, Integer> statuses = new java.util.concurrent.ConcurrentSkipListMap<>();
    List<Long> answeredMs = new java.util.concurrent.CopyOnWriteArrayList<>();
    Thread callers = new Thread(() -> {
      int probe = 0;
      while (System.nanoTime() - stoppedAt < OUTAGE.toNanos() - TimeUnit.SECONDS.toNanos(1)) {
        long t = System.nanoTime();
        statuses.merge(probes.sendOnce(pods.get(probe % pods.size()), "db-0", "db-probe-" + probe, traffic.gatewayHistory()), 1, Integer::sum);
        answeredMs.add(ms(t));
        probe++;
        PodProbes.sleep(200);
      }
    }, "outage-callers");
    callers.start();
    Optional<Duration> allUnready = sampleUntil(() -> pods.parallelStream().noneMatch(p -> probes.ready(p) == 200), stoppedAt, OUTAGE);
    PodProbes.sleep(Math.max(0, OUTAGE.toMillis() - (System.nanoTime() - stoppedAt) / 1_000_000));
    long startedAt = System.nanoTime();
    cluster.postgres().start();
    Duration allReady = awaitAllReady(pods, startedAt);
    join(callers);
    String outage = "stopped " + OUTAGE.toSeconds() + " s: every pod unready " + allUnready.map(d -> d.toMillis() + " ms").orElse("NEVER")
      + " after the stop; direct SendMessage statuses meanwhile " + statuses + " answered in " + answeredMs + " ms; every pod ready again "
      + allReady.toMillis() + " ms after the start";
    say("database " + outage);

    PodProbes.sleep(3_000);
    long crashedAt = System.nanoTime();
    cluster.postgres().crash();
    cluster.postgres().start();
    long upAt = System.nanoTime();
    Duration crashReady = awaitAllReady(pods, crashedAt);
    String crash = "crashed (SIGQUIT) and restarted in " + ms(crashedAt, upAt) + " ms: every pod ready " + crashReady.toMillis()
      + " ms after the crash";
    say("database " + crash);
    PodProbes.sleep(5_000);

    Verdicts verdicts = traffic.stopAndCheck("database");
        summary.put("4 database outage", outage);
    summary.put("4 database crash", crash);
    summary.put("4 database verdicts", verdicts.line());
    assertThat(allUnready).as("every pod reported not-ready while the database was down").isPresent();
    // UNAVAILABLE, or (rarely, just after the stop) an acceptance the checker below finds durable: the
    // probes are in the history; never INTERNAL or another status
    assertThat(statuses.keySet()).as("what clients saw while the database was down").contains("UNAVAILABLE").isSubsetOf("UNAVAILABLE", "OK");
    verdicts.assertValid();
  }

  /** Scenario 5 (and the swarm's share of 2): kill -9 of the busiest pod under swarm and gateway load; its spare replaces it. */
  @Test
  @Order(4)
  void aKilledPodDoublesNoClaimAndLosesNoRequest() {
    Traffic traffic = Traffic.start(this, "kill");
    GatewayLoad load = traffic.gateway();
    PodProbes.sleep(4_000);
    Map<String, String> before = PodProbes.truth(load.agents());
    int victim = busiest(before);
    String name = cluster.pod(victim).namespace();
    long killedAt = System.nanoTime();
    cluster.kill(victim);
    List<ResilientAgent> moved = load.agents().stream().filter(a -> name.equals(before.get(a.agentId()))).toList();
    long back = awaitOff(moved, name, killedAt);
    int spare = cluster.running().size() < 3 ? spareIndex() : -1;
    if (spare >= 0) {
      cluster.start(spare);
    }
    PodProbes.sleep(5_000);
    Verdicts verdicts = traffic.stopAndCheck("kill");
    String line = "killed " + name + " holding " + moved.size() + " of 30 agents; all re-registered on survivors " + back + " ms after kill -9";
    say("kill " + line);
    summary.put("5 kill -9", line);
    summary.put("5 kill verdicts", verdicts.line());
    verdicts.assertValid();
  }

  /**
   * Packet loss into one pod, 30 ms added to every packet another pod sends (netem, or the userspace
   * delay where the kernel has no netem) and a slow link to PostgreSQL, under load.
   */
  @Test
  @Order(5)
  void aSlowLossyNetworkLosesNothing() {
    Traffic traffic = Traffic.start(this, "slow");
    PodProbes.sleep(3_000);
    int pod = cluster.running().get(0);
    cluster.loss(pod, 5);
    int slow = cluster.running().get(1);
    Optional<String> delayed = cluster.delay(slow, 30);
    if (CI) {
      assertThat(delayed).as("a delay on " + cluster.pod(slow).namespace() + " (.ci/run installs iptables for the userspace delay)").isPresent();
    }
    // the delay is in effect: a TCP connect to the delayed pod waits for its SYN-ACK
    double slowConnect = medianConnectMillis(slow);
    double fastConnect = medianConnectMillis(cluster.running().get(2));
    if (delayed.isPresent()) {
      assertThat(slowConnect).as("TCP connect to the delayed pod, ms (another pod: " + fastConnect + " ms)").isGreaterThanOrEqualTo(30);
    }
    cluster.databaseLatency(Duration.ofMillis(20));
    PodProbes.sleep(20_000);
    cluster.clear(pod);
    cluster.clear(slow);
    cluster.databaseLatency(Duration.ZERO);
    Verdicts verdicts = traffic.stopAndCheck("slow");
    String line = "5 % loss into " + cluster.pod(pod).namespace() + ", " + delayed.map(how -> "30 ms on every packet " + cluster.pod(slow).namespace() + " sends (" + how + "), ")
      .orElse("no delay between pods (neither netem nor the userspace delay here), ")
      + String.format(java.util.Locale.ROOT, "a TCP connect took %.1f ms there against %.2f ms to an undelayed pod, ", slowConnect, fastConnect)
      + "20 ms each way to PostgreSQL, for 20 s";
    say("slow network " + line);
    summary.put("6 slow network", line);
    summary.put("6 slow network verdicts", verdicts.line());
    verdicts.assertValid();
  }

  /** The median time of five TCP connects to pod {@code i}'s HTTP port, in milliseconds. */
  private double medianConnectMillis(int i) {
    double[] ms = new double[5];
    for (int n = 0; n < ms.length; n++) {
      try (java.net.Socket socket = new java.net.Socket()) {
        long began = System.nanoTime();
        socket.connect(new java.net.InetSocketAddress(cluster.pod(i).address(), NetnsCluster.HTTP_PORT), 3_000);
        ms[n] = (System.nanoTime() - began) / 1e6;
      } catch (java.io.IOException e) {
        ms[n] = Double.MAX_VALUE;
      }
    }
    java.util.Arrays.sort(ms);
    return ms[ms.length / 2];
  }

  /** Samples {@code condition} on another thread until it holds; how long after {@code since} that was, or empty within {@code limit}. */
  private static Optional<Duration> sampleUntil(java.util.function.BooleanSupplier condition, long since, Duration limit) {
    java.util.concurrent.CompletableFuture<Optional<Duration>> f = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      while (System.nanoTime() - since < limit.toNanos()) {
        if (condition.getAsBoolean()) {
          return Optional.of(Duration.ofNanos(System.nanoTime() - since));
        }
        PodProbes.sleep(100);
      }
      return Optional.empty();
    });
    return f.join();
  }

  private static void join(Thread t) {
    try {
      t.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A scenario's load: 30 agents at 30 messages/s and 8 swarm claimers, each recorded in its own history. */
  private record Traffic(FaultScenariosIT it, GatewayLoad gateway, History gatewayHistory, SwarmLoad swarm, History swarmHistory) {

    static Traffic start(FaultScenariosIT it, String name) {
      History g = new History();
      History s = new History();
      GatewayLoad load = GatewayLoad.start(it.vertx, it.grpc, it.probes.grpcEndpoints(), it.admin, it.agentToken,
        GatewayLoad.Settings.of(30, 30, 50).withPrefix(name), g);
      SwarmLoad claims = SwarmLoad.start(it.vertx, it.probes.httpEndpoints(), it.admin,
        new SwarmLoad.Settings(3_000, 8, 3, 3_000, 100, name + "-task"), s);
      return new Traffic(it, load, g, claims, s);
    }

    /** Stops both loads, lets them settle, and judges both histories (gateway, swarm); an invalid one is kept under target/. */
    Verdicts stopAndCheck(String name) {
      boolean settled = gateway.stop(Duration.ofSeconds(60));
      swarm.stop(Duration.ofSeconds(10));
      Verdict g = GatewayChecker.check(gatewayHistory, it.cluster.database());
      Verdict s = SwarmChecker.check(swarmHistory, it.cluster.database());
      keepIfInvalid(name + "-gateway", g, gatewayHistory);
      keepIfInvalid(name + "-swarm", s, swarmHistory);
      say(name + " load " + gateway.counts() + ", settled " + settled + "\n" + g + "\n" + s);
      return new Verdicts(g, s);
    }
  }

  private Duration awaitAllReady(List<Integer> pods, long since) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (pods.stream().allMatch(p -> probes.ready(p) == 200)) {
        return Duration.ofNanos(System.nanoTime() - since);
      }
      PodProbes.sleep(100);
    }
    throw new AssertionError("pods " + pods + " not all ready within 60 s");
  }

  private int busiest(Map<String, String> where) {
    Map<String, Long> perNode = where.values().stream().collect(Collectors.groupingBy(n -> n, Collectors.counting()));
    String node = perNode.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    for (int i = 0; i < cluster.size(); i++) {
      if (cluster.pod(i).namespace().equals(node)) {
        return i;
      }
    }
    throw new IllegalStateException("no pod " + node);
  }

  private int spareIndex() {
    for (int i = 0; i < cluster.size(); i++) {
      if (!cluster.running().contains(i)) {
        return i;
      }
    }
    return -1;
  }

  /** Milliseconds from the kill until every one of {@code agents} was welcomed by another node. */
  private static long awaitOff(List<ResilientAgent> agents, String node, long since) {
    long deadline = since + TimeUnit.SECONDS.toNanos(60);
    while (agents.stream().anyMatch(a -> a.servedBy().equals(node))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("agents still on the killed " + node + " 60 s later");
      }
      PodProbes.sleep(20);
    }
    return ms(since);
  }

  private static long moved(Map<String, String> before, Map<String, String> after) {
    return before.entrySet().stream().filter(e -> !e.getValue().equals(after.get(e.getKey()))).count();
  }

  /** Every op of {@code history}, one per line, kept under target/ when its verdict is invalid (the evidence). */
  private static void keepIfInvalid(String name, Verdict verdict, History history) {
    if (verdict.valid()) {
      return;
    }
    try {
      Path dir = Path.of("target", "fault-histories");
      java.nio.file.Files.createDirectories(dir);
      java.nio.file.Files.write(dir.resolve(name + ".txt"), history.ops().stream().map(Op::toString).toList());
    } catch (java.io.IOException e) {
      System.err.println("could not keep the history: " + e.getMessage());
    }
  }

  /** A scenario's two verdicts. */
  private record Verdicts(Verdict gateway, Verdict swarm) {

    String line() {
      return "gateway " + (gateway.valid() ? "valid" : "INVALID " + gateway.failed()) + ", swarm "
        + (swarm.valid() ? "valid" : "INVALID " + swarm.failed());
    }

    void assertValid() {
      gateway.assertValid();
      swarm.assertValid();
    }
  }

  private static void say(String line) {
    System.out.println("faults: " + line);
  }

  private static long ms(long since) {
    return (System.nanoTime() - since) / 1_000_000;
  }

  private static long ms(long from, long to) {
    return (to - from) / 1_000_000;
  }
}
