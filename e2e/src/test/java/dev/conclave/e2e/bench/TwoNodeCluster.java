package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Two node processes (the fat jar; roles gateway and pack-host) on 127.0.0.1 forming one Hazelcast
 * cluster over one PostgreSQL. PostgreSQL is embedded and started by the benchmark, with the
 * durable settings a node's own embedded PostgreSQL uses ({@code fsync}, {@code synchronous_commit}
 * and {@code full_page_writes} on), so both nodes can share it. Ports come from {@link FreePorts}.
 */
final class TwoNodeCluster implements AutoCloseable {

  static final String SECRET = "pack-bench-secret-0123456789abcdef0123456789";
  /** Both nodes and the CLI must share it when clustered (the base64 of 32 bytes). */
  static final String SECRETS_KEY = java.util.Base64.getEncoder().encodeToString("pack-bench-secrets-key-32bytes!!".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  static final String ROLES = "gateway,pack-host";

  record Member(String id, Path dataDir, int grpc, int http, int hazelcast, int eventBus) {
  }

  private final Path root;
  private final EmbeddedPostgresServer postgres;
  private final PgUrl db;
  private final List<Member> members = new ArrayList<>();
  private final NodeProcess[] processes = new NodeProcess[2];

  TwoNodeCluster(Path root) {
    this.root = root;
    postgres = EmbeddedPostgresServer.start(root.resolve("pg"), FreePorts.next(), Map.of());
    db = postgres.url();
    for (int i = 1; i <= 2; i++) {
      members.add(new Member("node-" + i, root.resolve("node-" + i), FreePorts.next(), FreePorts.next(), FreePorts.next(),
        FreePorts.next()));
    }
  }

  /** Starts both nodes at once; returns once both are ready. */
  Duration start() {
    long t0 = System.nanoTime();
    for (int i = 0; i < 2; i++) {
      processes[i] = launch(i);
    }
    List<CompletableFuture<Duration>> ready = new ArrayList<>();
    for (NodeProcess p : processes) {
      ready.add(CompletableFuture.supplyAsync(() -> p.awaitReady(Duration.ofSeconds(180))));
    }
    ready.forEach(CompletableFuture::join);
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  private NodeProcess launch(int i) {
    Member m = members.get(i);
    Map<String, String> env = new HashMap<>();
    env.put("CONCLAVE_NODE_ID", m.id());
    env.put("CONCLAVE_ROLES", ROLES);
    env.put("CONCLAVE_PG_URL", db.full());
    env.put("CONCLAVE_AUTH_SECRET", SECRET);
    env.put("CONCLAVE_SECRETS_KEY", SECRETS_KEY);
    env.put("CONCLAVE_CLUSTER_MEMBERS", "127.0.0.1:" + members.get(0).hazelcast() + ",127.0.0.1:" + members.get(1).hazelcast());
    env.put("CONCLAVE_CLUSTER_HOST", "127.0.0.1");
    env.put("CONCLAVE_CLUSTER_PORT", Integer.toString(m.hazelcast()));
    env.put("CONCLAVE_EVENTBUS_PORT", Integer.toString(m.eventBus()));
    env.put("CONCLAVE_SHUTDOWN_GRACE_SECONDS", "5");
    return NodeProcess.start(m.dataDir(), m.grpc(), m.http(), env);
  }

  /** A new principal's token ({@code --new-agent NAME}, {@code --new-pack NAME}), issued by the CLI against the shared database. */
  String token(String kind, String name) {
    return NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", members.get(0).dataDir().toString(), "CONCLAVE_PG_URL", db.full(),
      "CONCLAVE_AUTH_SECRET", SECRET, "CONCLAVE_SECRETS_KEY", SECRETS_KEY), "token", kind, name, "--ttl", "2h");
  }

  NodeProcess node(int i) {
    return processes[i];
  }

  Member member(int i) {
    return members.get(i);
  }

  /** The postmaster's pid (its backends are its children). */
  long postgresPid() {
    return ProcCpu.postmasterPid(postgres.directory()).orElse(-1);
  }

  String postgresOptions() {
    try {
      return Files.readString(postgres.directory().resolve("postmaster.opts")).strip();
    } catch (Exception e) {
      return "(not read: " + e + ")";
    }
  }

  /** One number from the shared database, such as a count (blocking; outside the measured windows only). */
  long queryLong(String sql) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /** Stops both nodes gracefully (SIGTERM); returns their exit codes. */
  int[] stop() {
    int[] exits = new int[2];
    List<CompletableFuture<Integer>> stopping = new ArrayList<>();
    for (NodeProcess p : processes) {
      stopping.add(CompletableFuture.supplyAsync(() -> p == null || !p.alive() ? -1 : p.terminate(Duration.ofSeconds(60))));
    }
    for (int i = 0; i < 2; i++) {
      exits[i] = stopping.get(i).join();
    }
    return exits;
  }

  @Override
  public void close() {
    for (NodeProcess p : processes) {
      if (p != null) {
        p.close();
      }
    }
    postgres.close();
    TestDatabase.deleteTree(root);
  }
}
