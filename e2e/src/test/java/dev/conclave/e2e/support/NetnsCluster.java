package dev.conclave.e2e.support;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * N node processes, each in its own network namespace ("pod") with its own address on a private
 * bridge, finding each other through DNS with {@code CONCLAVE_CLUSTER_K8S_DNS} as on Kubernetes: the
 * networking is {@code deploy/local-cluster/netns.sh} (bridge {@code cnclv0}, 10.213.0.0/24, pod K at
 * 10.213.0.(10+K), dnsmasq on 10.213.0.1). A pod's address is published under the headless cluster
 * name when its node starts (the Service publishes not-ready pods, as k8s/base/services.yaml does) and
 * under the gateways' Service name once {@code /health/ready} answers 200; a killed pod leaves both.
 * One fresh PostgreSQL database, reached by the pods through a port this class forwards from
 * 10.213.0.1 to the test server, or (with {@link Options#ownPostgres}) a server of the test's own
 * that it can stop, start and crash ({@link OwnPostgres}). {@link #close} (also run by a JVM shutdown
 * hook) kills every node and removes every namespace, link and the DNS server, whatever happened before.
 *
 * <p>Faults: {@link #kill} (SIGKILL), {@link #cut}/{@link #partition}/{@link #heal} (packets dropped
 * silently between pods, one way or both), {@link #loss} and {@link #delay} (a pod's network), a slow
 * database link ({@link #databaseLatency}), and the database itself ({@link #postgres}). Spare pods
 * ({@link Options#spares}) let {@link #rollingRestart} surge one pod at a time as a Deployment with
 * {@code maxUnavailable: 0, maxSurge: 1} does.
 *
 * <p>Needs Linux, root, {@code ip}, {@code nft} and {@code dnsmasq}: {@link #assumeSupported} skips the test
 * otherwise, except on CI ({@code CI=true}), where a missing piece fails it.
 *
 * <p>The bridge, the namespaces' names and the addresses are the host's, one set: a cluster holds
 * {@link HostLock} {@code netns} from {@link #up} to {@link #close}, so tests in two JVMs (failsafe's
 * forks) take turns instead of tearing down each other's pods.
 */
public final class NetnsCluster implements AutoCloseable {

  public static final String HOST_ADDRESS = "10.213.0.1";
  /** The headless Service Hazelcast discovers members through: every started pod. */
  public static final String CLUSTER_DNS = "conclave-cluster.conclave.svc.cluster.local";
  /** The gateways' Service: the ready pods only. */
  public static final String SERVICE_DNS = "conclave.conclave.svc.cluster.local";
  public static final int GRPC_PORT = 50051;
  public static final int HTTP_PORT = 8080;
  public static final int HAZELCAST_PORT = 5701;
  public static final int EVENT_BUS_PORT = 5711;

  /** One pod: its namespace (also the node's id, like a pod name), address and data dir. */
  public record Pod(String namespace, String address, Path dataDir) {
  }

  /**
   * How the cluster is made: {@code spares} pods beyond the ones {@link #startAll} starts (for
   * rolling restarts); {@code ownPostgres} for a database server the test can stop and crash;
   * {@code env} added to every node's environment.
   */
  public record Options(int spares, boolean ownPostgres, Map<String, String> env) {

    public static Options defaults() {
      return new Options(0, false, Map.of());
    }
  }

  /** How a pod was replaced in a rolling restart: the new pod's start and the old pod's stop. */
  public record RolloutStep(String started, String stopped, Duration ready, Duration stop, int exitCode) {
  }

  private final Path script;
  private final String roles;
  private final String secret;
  private final Options options;
  private final int serving;
  private final Path root;
  private final Optional<OwnPostgres> ownPostgres;
  private final PgUrl db;
  private final List<Pod> pods = new ArrayList<>();
  private final NodeProcess[] processes;
  /** Every node process each pod ran, in order (a restarted pod's earlier logs are kept for reports). */
  private final List<List<NodeProcess>> history = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread hook;
  private PgForward forward;
  private HostLock.Held hostLock;

  private NetnsCluster(int serving, String roles, String secret, Options options) throws IOException {
    this.script = script();
    this.roles = roles;
    this.secret = secret;
    this.options = options;
    this.serving = serving;
    this.root = Files.createTempDirectory("conclave-netns");
    this.ownPostgres = options.ownPostgres() ? Optional.of(OwnPostgres.create(root.resolve("postgres"))) : Optional.empty();
    this.db = ownPostgres.map(OwnPostgres::url).orElseGet(TestDatabase::freshDatabase);
    int n = serving + options.spares();
    for (int k = 1; k <= n; k++) {
      pods.add(new Pod("cnclv-pod-" + k, "10.213.0." + (10 + k), root.resolve("cnclv-pod-" + k)));
    }
    this.processes = new NodeProcess[n];
    for (int k = 0; k < n; k++) {
      history.add(new CopyOnWriteArrayList<>());
    }
    this.hook = new Thread(this::teardown, "netns-cluster-teardown");
  }

  /**
   * Creates the bridge, {@code n} pods and the DNS server (no node runs yet). Call
   * {@link #assumeSupported} first.
   */
  public static NetnsCluster up(int n, String roles, String secret) throws IOException {
    return up(n, roles, secret, Options.defaults());
  }

  /** As {@link #up(int, String, String)}, with spare pods, an own database server or extra settings. */
  public static NetnsCluster up(int n, String roles, String secret, Options options) throws IOException {
    HostLock.Held held = HostLock.NETNS.acquire();
    NetnsCluster c;
    try {
      c = new NetnsCluster(n, roles, secret, options);
    } catch (IOException | RuntimeException e) {
      held.close();
      throw e;
    }
    c.hostLock = held;
    Runtime.getRuntime().addShutdownHook(c.hook);
    try {
      c.run("up", Integer.toString(c.pods.size()));
      c.forward = PgForward.start(HOST_ADDRESS, c.db.host(), c.db.port());
      return c;
    } catch (RuntimeException | IOException e) {
      c.close();
      throw e;
    }
  }

  /** Skips the calling test where namespaces cannot be made; fails it instead on CI. */
  public static void assumeSupported() {
    Optional<String> missing = missing();
    if (missing.isEmpty()) {
      return;
    }
    String message = "network-namespace cluster tests need " + missing.get();
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      throw new IllegalStateException(message + " (CI=true: .ci/run installs the tools and runs as root)");
    }
    Assumptions.abort(message + "; skipped");
  }

  private static Optional<String> missing() {
    if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
      return Optional.of("Linux");
    }
    if (uid() != 0) {
      return Optional.of("root (network namespaces and bridges need CAP_NET_ADMIN)");
    }
    Map<String, String> packages = Map.of("ip", "iproute2", "dnsmasq", "dnsmasq-base", "nft", "nftables", "getent", "libc-bin");
    for (String tool : List.of("ip", "dnsmasq", "nft", "getent")) {
      if (which(tool).isEmpty()) {
        return Optional.of("'" + tool + "' (apt-get install " + packages.get(tool) + ")");
      }
    }
    return Optional.empty();
  }

  private static long uid() {
    try {
      return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
        .map(l -> Long.parseLong(l.split("\\s+")[1])).findFirst().orElse(-1L);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static Optional<Path> which(String tool) {
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
    dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, tool)).filter(Files::isExecutable).findFirst();
  }

  /** {@code deploy/local-cluster/netns.sh}: the {@code conclave.netns.script} property, or found from the e2e or root directory. */
  public static Path script() {
    List<Path> candidates = new ArrayList<>();
    if (System.getProperty("conclave.netns.script") != null) {
      candidates.add(Path.of(System.getProperty("conclave.netns.script")));
    }
    candidates.add(Path.of("../deploy/local-cluster/netns.sh"));
    candidates.add(Path.of("deploy/local-cluster/netns.sh"));
    return candidates.stream().filter(Files::isRegularFile).findFirst().map(p -> p.toAbsolutePath().normalize())
      .orElseThrow(() -> new IllegalStateException("netns.sh not found (looked at " + candidates + ")"));
  }

  /** Starts every pod's node (spares excepted) at once and waits until all are ready (and published as ready). */
  public void startAll() {
    for (int i = 0; i < serving; i++) {
      processes[i] = launch(i);
    }
    List<CompletableFuture<Void>> ready = new ArrayList<>();
    for (int i = 0; i < serving; i++) {
      int pod = i;
      ready.add(CompletableFuture.runAsync(() -> awaitReady(pod)));
    }
    ready.forEach(CompletableFuture::join);
  }

  /** (Re)starts pod {@code i}'s node and waits until it is ready. */
  public NodeProcess start(int i) {
    processes[i] = launch(i);
    awaitReady(i);
    return processes[i];
  }

  private NodeProcess launch(int i) {
    Pod p = pods.get(i);
    run("publish", CLUSTER_DNS, p.address());
    Map<String, String> env = new HashMap<>();
    env.put("CONCLAVE_NODE_ID", p.namespace());
    env.put("CONCLAVE_PG_URL", new PgUrl(HOST_ADDRESS, forward.port(), db.database(), db.user(), db.password(), db.sslMode()).full());
    env.put("CONCLAVE_AUTH_SECRET", secret);
    env.put("CONCLAVE_ROLES", roles);
    env.put("CONCLAVE_CLUSTER_K8S_DNS", CLUSTER_DNS);
    env.put("CONCLAVE_CLUSTER_HOST", p.address());
    env.put("CONCLAVE_CLUSTER_PORT", Integer.toString(HAZELCAST_PORT));
    env.put("CONCLAVE_EVENTBUS_PORT", Integer.toString(EVENT_BUS_PORT));
    env.put("CONCLAVE_SHUTDOWN_GRACE_SECONDS", "8");
    env.put("CONCLAVE_PG_POOL_SIZE", "8");
    env.putAll(options.env());
    NodeProcess node = NodeProcess.start(List.of("ip", "netns", "exec", p.namespace()), p.address(), p.dataDir(), GRPC_PORT, HTTP_PORT, env);
    history.get(i).add(node);
    return node;
  }

  private void awaitReady(int i) {
    processes[i].awaitReady(Duration.ofSeconds(120));
    run("publish", SERVICE_DNS, pods.get(i).address());
  }

  /** SIGKILL to pod {@code i}'s node; the pod leaves both DNS names, as a deleted pod does. */
  public void kill(int i) {
    processes[i].kill();
    run("unpublish", SERVICE_DNS, pods.get(i).address());
    run("unpublish", CLUSTER_DNS, pods.get(i).address());
  }

  /**
   * Stops pod {@code i} as the kubelet does: out of the Service's endpoints, the preStop pause, SIGTERM,
   * and SIGKILL if the node outlives {@code terminationGrace} (counted from the preStop, as on
   * Kubernetes); the pod leaves the headless name once the process is gone. Returns the exit code
   * (137 when it had to be killed).
   */
  public int terminate(int i, Duration preStop, Duration terminationGrace) {
    long began = System.nanoTime();
    run("unpublish", SERVICE_DNS, pods.get(i).address());
    sleep(preStop.toMillis());
    int code;
    try {
      code = processes[i].terminate(terminationGrace.minus(Duration.ofNanos(System.nanoTime() - began)));
    } catch (IllegalStateException outlivedGrace) {
      code = 137;
    }
    run("unpublish", CLUSTER_DNS, pods.get(i).address());
    return code;
  }

  /**
   * A Deployment's rollout with {@code maxUnavailable: 0, maxSurge: 1}: for each pod running now, one
   * at a time, a new pod (a spare namespace) is started and must be ready before the old one is
   * stopped ({@link #terminate}); the stopped pod's namespace becomes the next spare. Needs
   * {@link Options#spares} of at least 1. Returns each step's times.
   */
  public List<RolloutStep> rollingRestart(Duration preStop, Duration terminationGrace) {
    List<Integer> old = running();
    List<RolloutStep> steps = new ArrayList<>();
    for (int victim : old) {
      int surge = spare().orElseThrow(() -> new IllegalStateException("a rolling restart needs a spare pod (Options.spares)"));
      long t0 = System.nanoTime();
      start(surge);
      Duration ready = Duration.ofNanos(System.nanoTime() - t0);
      long t1 = System.nanoTime();
      int code = terminate(victim, preStop, terminationGrace);
      steps.add(new RolloutStep(pods.get(surge).namespace(), pods.get(victim).namespace(), ready,
        Duration.ofNanos(System.nanoTime() - t1), code));
    }
    return steps;
  }

  /** The pods whose node runs now. */
  public List<Integer> running() {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < processes.length; i++) {
      if (processes[i] != null && processes[i].alive()) {
        out.add(i);
      }
    }
    return out;
  }

  private Optional<Integer> spare() {
    for (int i = 0; i < processes.length; i++) {
      if (processes[i] == null || !processes[i].alive()) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  /** Pod {@code to} drops every packet from pod {@code from} (one way), silently. */
  public void cut(int from, int to) {
    run("cut", Integer.toString(from + 1), Integer.toString(to + 1));
  }

  /**
   * Partitions pod {@code i} from every other pod (clients and the database still reach it): both
   * ways, or one way ({@code bothWays} false: the others no longer hear pod {@code i}, which still
   * hears them).
   */
  public void partition(int i, boolean bothWays) {
    for (int j = 0; j < pods.size(); j++) {
      if (j != i) {
        cut(i, j);
        if (bothWays) {
          cut(j, i);
        }
      }
    }
  }

  /** Removes every cut. */
  public void heal() {
    run("heal");
  }

  /** Pod {@code i} drops {@code percent} % of the packets it receives, at random (0 ends it). */
  public void loss(int i, int percent) {
    run("loss", Integer.toString(i + 1), Integer.toString(percent));
  }

  /**
   * Delays every packet pod {@code i} sends by {@code ms}: with tc netem where the kernel has it,
   * otherwise with an iptables-legacy NFQUEUE rule and {@code deploy/local-cluster/nfq-delay.py} in
   * the pod (netns.sh). Returns which ("netem" or "nfqueue"); empty, changing nothing, when neither
   * can (then {@link #databaseLatency} is the way to slow a link).
   */
  public Optional<String> delay(int i, int ms) {
    String out = exec(List.of(script.toString(), "delay", Integer.toString(i + 1), Integer.toString(ms)), Set.of(0, 3));
    if (out.contains("(netem)")) {
      return Optional.of("netem");
    }
    return out.contains("(nfqueue") ? Optional.of("nfqueue") : Optional.empty();
  }

  /** Pod {@code i} without loss or delay. */
  public void clear(int i) {
    run("clear", Integer.toString(i + 1));
  }

  /** Every byte between the pods and PostgreSQL arrives {@code latency} later, each way (zero ends it). */
  public void databaseLatency(Duration latency) {
    forward.delay(latency);
  }

  /** The test's own database server ({@link Options#ownPostgres}), to stop, start or crash. */
  public OwnPostgres postgres() {
    return ownPostgres.orElseThrow(() -> new IllegalStateException("the cluster was made without Options.ownPostgres"));
  }

  /** The nodes' database (as the test reaches it, on 127.0.0.1), for checkers that read it afterwards. */
  public PgUrl database() {
    return db;
  }

  /** What {@code name} resolves to inside pod {@code i} (its resolver, the DNS server), sorted. */
  public Set<String> resolve(int i, String name) {
    Set<String> out = new TreeSet<>();
    String text = exec(List.of("ip", "netns", "exec", pods.get(i).namespace(), "getent", "ahostsv4", name), Set.of(0, 2));
    text.lines().filter(l -> !l.isBlank()).forEach(l -> out.add(l.split("\\s+")[0]));
    return out;
  }

  public Pod pod(int i) {
    return pods.get(i);
  }

  public NodeProcess node(int i) {
    return processes[i];
  }

  public int size() {
    return pods.size();
  }

  /** The admin token the first pod's node wrote; every node accepts it (one secret). */
  public String adminToken() throws IOException {
    return Files.readString(pods.get(0).dataDir().resolve("admin.token")).trim();
  }

  /** A new agent principal's token, issued through the CLI against the shared database. */
  public String agentToken(String name) {
    return NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", pods.get(0).dataDir().toString(), "CONCLAVE_PG_URL", db.full(),
      "CONCLAVE_AUTH_SECRET", secret), "token", "--new-agent", name, "--ttl", "2h");
  }

  /** Every node's log, each process a pod ran (pod-K-1.log, pod-K-2.log after a restart, ...), for a test's report. */
  public void dumpLogs(Path dir) {
    try {
      Files.createDirectories(dir);
      for (int i = 0; i < history.size(); i++) {
        List<NodeProcess> ran = history.get(i);
        for (int n = 0; n < ran.size(); n++) {
          Files.writeString(dir.resolve(pods.get(i).namespace() + "-" + (n + 1) + ".log"), ran.get(n).logText());
        }
      }
    } catch (IOException e) {
      System.err.println("could not save the node logs: " + e.getMessage());
    }
  }

  private void run(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(script.toString());
    cmd.addAll(List.of(args));
    exec(cmd, Set.of(0));
  }

  private static String exec(List<String> cmd, Set<Integer> ok) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", cmd) + " did not finish");
      }
      if (!ok.contains(p.exitValue())) {
        throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.trim());
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Kills every node, stops the forward, removes the namespaces, links and DNS server. Safe to repeat. */
  @Override
  public void close() {
    teardown();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or ran
    }
  }

  private void teardown() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (NodeProcess p : processes) {
      if (p != null) {
        p.close();
      }
    }
    if (forward != null) {
      forward.close();
    }
    ownPostgres.ifPresent(OwnPostgres::close);
    try {
      run("down");
    } catch (RuntimeException e) {
      System.err.println("netns teardown failed, run deploy/local-cluster/netns.sh down by hand: " + e.getMessage());
    }
    TestDatabase.deleteTree(root);
    if (hostLock != null) {
      hostLock.close();
    }
  }

  /**
   * A TCP port on the bridge address that forwards to the test PostgreSQL (which listens on
   * 127.0.0.1 only, and lets in only 127.0.0.1 and its password): the pods' way to the database.
   */
  private static final class PgForward implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile long delayNanos;

    private PgForward(ServerSocket server, String targetHost, int targetPort) {
      this.server = server;
      this.targetHost = targetHost;
      this.targetPort = targetPort;
    }

    static PgForward start(String bindHost, String targetHost, int targetPort) throws IOException {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress(InetAddress.getByName(bindHost), 0));
      PgForward f = new PgForward(server, targetHost, targetPort);
      Thread accept = new Thread(f::accept, "netns-pg-forward");
      accept.setDaemon(true);
      accept.start();
      return f;
    }

    int port() {
      return server.getLocalPort();
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket in = server.accept();
          Socket out = new Socket();
          try {
            out.connect(new InetSocketAddress(targetHost, targetPort), 5000);
          } catch (IOException e) {
            in.close();
            continue;
          }
          open.add(in);
          open.add(out);
          pump(in, out);
          pump(out, in);
        } catch (IOException e) {
          // closed, or one connection failed: the loop condition decides
        }
      }
    }

    /** From now on every chunk is written {@code latency} after it was read (zero: at once). */
    void delay(Duration latency) {
      delayNanos = latency.toNanos();
    }

    /**
     * Copies {@code from} to {@code to}: a reader queues each chunk with the time it may leave, a
     * writer sends it then, so a delay adds latency without limiting throughput, and order is kept.
     */
    private void pump(Socket from, Socket to) {
      BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
      Thread reader = new Thread(() -> {
        byte[] buffer = new byte[16384];
        try (InputStream in = from.getInputStream()) {
          int n;
          while ((n = in.read(buffer)) >= 0) {
            queue.put(new Chunk(System.nanoTime() + delayNanos, java.util.Arrays.copyOf(buffer, n)));
          }
        } catch (IOException | InterruptedException ignored) {
          // either side went away
        } finally {
          queue.add(Chunk.END);
        }
      }, "netns-pg-read");
      Thread writer = new Thread(() -> {
        try (OutputStream out = to.getOutputStream()) {
          while (true) {
            Chunk c = queue.take();
            if (c == Chunk.END) {
              break;
            }
            long wait = c.due() - System.nanoTime();
            if (wait > 0) {
              TimeUnit.NANOSECONDS.sleep(wait);
            }
            out.write(c.bytes());
            out.flush();
          }
        } catch (IOException | InterruptedException ignored) {
          // either side went away
        } finally {
          closeQuietly(from);
          closeQuietly(to);
          open.remove(from);
          open.remove(to);
        }
      }, "netns-pg-write");
      reader.setDaemon(true);
      writer.setDaemon(true);
      reader.start();
      writer.start();
    }

    private record Chunk(long due, byte[] bytes) {
      static final Chunk END = new Chunk(0, new byte[0]);
    }

    private static void closeQuietly(Socket s) {
      try {
        s.close();
      } catch (IOException ignored) {
        // already closed
      }
    }

    @Override
    public void close() {
      try {
        server.close();
      } catch (IOException ignored) {
        // already closed
      }
      open.forEach(PgForward::closeQuietly);
    }
  }
}
