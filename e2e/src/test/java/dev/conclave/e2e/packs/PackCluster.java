package dev.conclave.e2e.packs;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.db.PgUrl;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * N real node processes on 127.0.0.1 running the gateway and the pack host, forming one Hazelcast
 * cluster over one PostgreSQL. The pattern of {@code cluster.Cluster}, with the pack-host role and
 * pack tokens.
 */
final class PackCluster implements AutoCloseable {

  static final String SECRET = "e2e-pack-cluster-secret-0123456789abcdef012345";

  record Member(String id, Path dataDir, int grpc, int http, int hazelcast, int eventBus) {
  }

  private final Path root;
  private final PgUrl db;
  private final List<Member> members = new ArrayList<>();
  private final NodeProcess[] processes;

  PackCluster(int n) throws Exception {
    root = Files.createTempDirectory("conclave-pack-cluster");
    db = TestDatabase.freshDatabase();
    for (int i = 1; i <= n; i++) {
      members.add(new Member("node-" + i, root.resolve("node-" + i), FreePorts.next(), FreePorts.next(), FreePorts.next(), FreePorts.next()));
    }
    processes = new NodeProcess[n];
  }

  /** Starts every member at once and waits until all are ready. */
  void startAll() {
    for (int i = 0; i < members.size(); i++) {
      processes[i] = launch(i);
    }
    List<CompletableFuture<Duration>> ready = new ArrayList<>();
    for (NodeProcess p : processes) {
      ready.add(CompletableFuture.supplyAsync(() -> p.awaitReady(Duration.ofSeconds(120))));
    }
    ready.forEach(CompletableFuture::join);
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
    env.put("CONCLAVE_AUTH_SECRET", SECRET);
    env.put("CONCLAVE_ROLES", "gateway,pack-host");
    env.put("CONCLAVE_CLUSTER_MEMBERS", all.toString());
    env.put("CONCLAVE_CLUSTER_HOST", "127.0.0.1");
    env.put("CONCLAVE_CLUSTER_PORT", Integer.toString(m.hazelcast()));
    env.put("CONCLAVE_EVENTBUS_PORT", Integer.toString(m.eventBus()));
    env.put("CONCLAVE_SHUTDOWN_GRACE_SECONDS", "8");
    env.put("CONCLAVE_PG_POOL_SIZE", "8");
    return NodeProcess.start(m.dataDir(), m.grpc(), m.http(), env);
  }

  NodeProcess node(int i) {
    return processes[i];
  }

  Member member(int i) {
    return members.get(i);
  }

  /** The admin token the first node wrote; every node accepts it (one secret). */
  String adminToken() throws Exception {
    return Files.readString(members.get(0).dataDir().resolve("admin.token")).trim();
  }

  /** A new agent principal's token, issued through the CLI against the shared database. */
  String agentToken(String name) {
    return cli("--new-agent", name);
  }

  /** A new pack principal's token (only packs may call PackService/Register). */
  String packToken(String name) {
    return cli("--new-pack", name);
  }

  private String cli(String kind, String name) {
    return NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", members.get(0).dataDir().toString(), "CONCLAVE_PG_URL", db.full(),
      "CONCLAVE_AUTH_SECRET", SECRET), "token", kind, name, "--ttl", "2h");
  }

  /** The lines of a node's log that report an ERROR, for the test's report. */
  List<String> errorLines(int i) {
    return processes[i] == null ? List.of() : processes[i].logText().lines().filter(l -> l.contains(" ERROR ")).toList();
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
