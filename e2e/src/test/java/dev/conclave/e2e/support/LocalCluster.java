package dev.conclave.e2e.support;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * N real node processes (the fat jar) on 127.0.0.1 forming one Hazelcast cluster over one fresh
 * PostgreSQL database, running the given roles: the one way multi-node tests and benchmarks start a
 * cluster. Node {@code i} is {@code node-(i+1)}; every node shares one signing secret, so any
 * node's tokens work on all.
 */
public class LocalCluster implements AutoCloseable {

  /** One member's name, data dir and ports. */
  public record Member(String id, Path dataDir, int grpc, int http, int hazelcast, int eventBus) {
  }

  private final String secret;
  private final String roles;
  private final int shutdownGraceSeconds;
  private final Path root;
  private final PgUrl db;
  private final List<Member> members = new ArrayList<>();
  private final NodeProcess[] processes;
  private final Map<String, String> extraEnv;

  public LocalCluster(int n, String roles, String secret, int shutdownGraceSeconds) throws IOException {
    this(n, roles, secret, shutdownGraceSeconds, Map.of());
  }

  /** As above, with {@code extraEnv} added to every node's environment (e.g. CONCLAVE_SWARM_RATE_LIMITS=false). */
  public LocalCluster(int n, String roles, String secret, int shutdownGraceSeconds, Map<String, String> extraEnv) throws IOException {
    this.extraEnv = Map.copyOf(extraEnv);
    this.secret = secret;
    this.roles = roles;
    this.shutdownGraceSeconds = shutdownGraceSeconds;
    root = Files.createTempDirectory("conclave-cluster");
    db = TestDatabase.freshDatabase();
    for (int i = 1; i <= n; i++) {
      members.add(new Member("node-" + i, root.resolve("node-" + i), FreePorts.next(), FreePorts.next(), FreePorts.next(), FreePorts.next()));
    }
    processes = new NodeProcess[n];
  }

  /**
   * How long a member may take to be ready: 120 s, or {@code -Dconclave.cluster.readySeconds} (a
   * benchmark on a loaded machine, where three nodes joining on shared cores take longer).
   */
  private static final Duration READY_LIMIT = Duration.ofSeconds(Long.getLong("conclave.cluster.readySeconds", 120));

  /** Starts every member at once and waits until all are ready. */
  public void startAll() {
    for (int i = 0; i < members.size(); i++) {
      processes[i] = launch(i);
    }
    List<CompletableFuture<Duration>> ready = new ArrayList<>();
    for (NodeProcess p : processes) {
      ready.add(CompletableFuture.supplyAsync(() -> p.awaitReady(READY_LIMIT)));
    }
    ready.forEach(CompletableFuture::join);
  }

  /** (Re)starts member {@code i} and waits until it is ready. */
  public NodeProcess start(int i) {
    processes[i] = launch(i);
    processes[i].awaitReady(READY_LIMIT);
    return processes[i];
  }

  private NodeProcess launch(int i) {
    Member m = members.get(i);
    StringBuilder all = new StringBuilder();
    for (Member other : members) {
      all.append(all.length() == 0 ? "" : ",").append("127.0.0.1:").append(other.hazelcast());
    }
    Map<String, String> env = new HashMap<>();
    env.put("CONCLAVE_NODE_ID", m.id());
    env.put("CONCLAVE_PG_URL", db.full());
    env.put("CONCLAVE_AUTH_SECRET", secret);
    env.put("CONCLAVE_ROLES", roles);
    env.put("CONCLAVE_CLUSTER_MEMBERS", all.toString());
    env.put("CONCLAVE_CLUSTER_HOST", "127.0.0.1");
    env.put("CONCLAVE_CLUSTER_PORT", Integer.toString(m.hazelcast()));
    env.put("CONCLAVE_EVENTBUS_PORT", Integer.toString(m.eventBus()));
    env.put("CONCLAVE_SHUTDOWN_GRACE_SECONDS", Integer.toString(shutdownGraceSeconds));
    env.put("CONCLAVE_PG_POOL_SIZE", "8");
    env.putAll(extraEnv);
    return NodeProcess.start(m.dataDir(), m.grpc(), m.http(), env);
  }

  public NodeProcess node(int i) {
    return processes[i];
  }

  public Member member(int i) {
    return members.get(i);
  }

  public int size() {
    return members.size();
  }

  public int grpcPort(int i) {
    return members.get(i).grpc();
  }

  public int httpPort(int i) {
    return members.get(i).http();
  }

  /** The cluster's shared database, for checkers that read what the nodes committed. */
  public PgUrl db() {
    return db;
  }

  public List<Integer> grpcPorts() {
    return members.stream().map(Member::grpc).toList();
  }

  /** The admin token the first node wrote; every node accepts it (one secret). */
  public String adminToken() throws IOException {
    return Files.readString(members.get(0).dataDir().resolve("admin.token")).trim();
  }

  /** A new agent principal's token, issued through the CLI against the shared database. */
  public String agentToken(String name) {
    return cli("--new-agent", name);
  }

  /** A new pack principal's token (only packs may call PackService/Register). */
  public String packToken(String name) {
    return cli("--new-pack", name);
  }

  private String cli(String kind, String name) {
    return NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", members.get(0).dataDir().toString(), "CONCLAVE_PG_URL", db.full(),
      "CONCLAVE_AUTH_SECRET", secret), "token", kind, name, "--ttl", "2h");
  }

  /** The lines of a node's log that report an ERROR, for the test's report. */
  public List<String> errorLines(int i) {
    return processes[i] == null ? List.of() : processes[i].logText().lines().filter(l -> l.contains(" ERROR ")).toList();
  }

  /** Each node's log, for a failed test's report. */
  public void dumpLogs(Path dir) {
    try {
      Files.createDirectories(dir);
      for (int i = 0; i < processes.length; i++) {
        if (processes[i] != null) {
          Files.writeString(dir.resolve(members.get(i).id() + ".log"), processes[i].logText());
        }
      }
    } catch (IOException e) {
      System.err.println("could not save the node logs: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    for (NodeProcess p : processes) {
      if (p != null) {
        p.close();
      }
    }
    TestDatabase.deleteTree(root);
  }
}
