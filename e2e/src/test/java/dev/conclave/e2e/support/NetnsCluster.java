package dev.conclave.e2e.support;

import dev.conclave.platform.db.PgUrl;
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
import java.util.concurrent.CompletableFuture;
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
 * 10.213.0.1 to the test server. {@link #close} (also run by a JVM shutdown hook) kills every node
 * and removes every namespace, link and the DNS server, whatever happened before.
 *
 * <p>Needs Linux, root, {@code ip} and {@code dnsmasq}: {@link #assumeSupported} skips the test
 * otherwise, except on CI ({@code CI=true}), where a missing piece fails it.
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

  private final Path script;
  private final String roles;
  private final String secret;
  private final Path root;
  private final PgUrl db;
  private final List<Pod> pods = new ArrayList<>();
  private final NodeProcess[] processes;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread hook;
  private PgForward forward;

  private NetnsCluster(int n, String roles, String secret) throws IOException {
    this.script = script();
    this.roles = roles;
    this.secret = secret;
    this.root = Files.createTempDirectory("conclave-netns");
    this.db = TestDatabase.freshDatabase();
    for (int k = 1; k <= n; k++) {
      pods.add(new Pod("cnclv-pod-" + k, "10.213.0." + (10 + k), root.resolve("cnclv-pod-" + k)));
    }
    this.processes = new NodeProcess[n];
    this.hook = new Thread(this::teardown, "netns-cluster-teardown");
  }

  /**
   * Creates the bridge, {@code n} pods and the DNS server (no node runs yet). Call
   * {@link #assumeSupported} first.
   */
  public static NetnsCluster up(int n, String roles, String secret) throws IOException {
    NetnsCluster c = new NetnsCluster(n, roles, secret);
    Runtime.getRuntime().addShutdownHook(c.hook);
    try {
      c.run("up", Integer.toString(n));
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
    for (String tool : List.of("ip", "dnsmasq", "getent")) {
      if (which(tool).isEmpty()) {
        return Optional.of("'" + tool + "' (apt-get install " + (tool.equals("ip") ? "iproute2" : tool.equals("dnsmasq") ? "dnsmasq-base" : "libc-bin") + ")");
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

  /** Starts every pod's node at once and waits until all are ready (and published as ready). */
  public void startAll() {
    for (int i = 0; i < pods.size(); i++) {
      processes[i] = launch(i);
    }
    List<CompletableFuture<Void>> ready = new ArrayList<>();
    for (int i = 0; i < pods.size(); i++) {
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
    return NodeProcess.start(List.of("ip", "netns", "exec", p.namespace()), p.address(), p.dataDir(), GRPC_PORT, HTTP_PORT, env);
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

  /** Each node's log, for a failed test's report. */
  public void dumpLogs(Path dir) {
    try {
      Files.createDirectories(dir);
      for (int i = 0; i < processes.length; i++) {
        if (processes[i] != null) {
          Files.writeString(dir.resolve(pods.get(i).namespace() + ".log"), processes[i].logText());
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
    try {
      run("down");
    } catch (RuntimeException e) {
      System.err.println("netns teardown failed, run deploy/local-cluster/netns.sh down by hand: " + e.getMessage());
    }
    TestDatabase.deleteTree(root);
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

    private void pump(Socket from, Socket to) {
      Thread t = new Thread(() -> {
        byte[] buffer = new byte[16384];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
          int n;
          while ((n = in.read(buffer)) >= 0) {
            out.write(buffer, 0, n);
            out.flush();
          }
        } catch (IOException ignored) {
          // either side went away
        } finally {
          closeQuietly(from);
          closeQuietly(to);
          open.remove(from);
          open.remove(to);
        }
      }, "netns-pg-pump");
      t.setDaemon(true);
      t.start();
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
