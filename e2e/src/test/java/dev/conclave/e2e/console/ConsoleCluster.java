package dev.conclave.e2e.console;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.db.PgUrl;
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
 * Two real node processes on 127.0.0.1 running every role (gateway, coordinator, pack host: all
 * that the console shows), forming one Hazelcast cluster over one PostgreSQL. Node 1 is index 0.
 */
final class ConsoleCluster implements AutoCloseable {

  private static final String SECRET = "e2e-console-cluster-secret-0123456789abcdef0123";

  private record Member(String id, Path dataDir, int grpc, int http, int hazelcast, int eventBus) {
  }

  private final Path root;
  private final PgUrl db;
  private final List<Member> members = new ArrayList<>();
  private final NodeProcess[] processes;

  ConsoleCluster(int n) throws IOException {
    root = Files.createTempDirectory("conclave-console-cluster");
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
    env.put("CONCLAVE_ROLES", "gateway,coordinator,pack-host");
    env.put("CONCLAVE_CLUSTER_MEMBERS", all.toString());
    env.put("CONCLAVE_CLUSTER_HOST", "127.0.0.1");
    env.put("CONCLAVE_CLUSTER_PORT", Integer.toString(m.hazelcast()));
    env.put("CONCLAVE_EVENTBUS_PORT", Integer.toString(m.eventBus()));
    env.put("CONCLAVE_SHUTDOWN_GRACE_SECONDS", "5");
    env.put("CONCLAVE_PG_POOL_SIZE", "8");
    return NodeProcess.start(m.dataDir(), m.grpc(), m.http(), env);
  }

  NodeProcess node(int i) {
    return processes[i];
  }

  int httpPort(int i) {
    return members.get(i).http();
  }

  int grpcPort(int i) {
    return members.get(i).grpc();
  }

  /** The admin token a node wrote; every node accepts it (one secret). */
  String adminToken() throws IOException {
    return Files.readString(members.get(0).dataDir().resolve("admin.token")).trim();
  }

  /** Each node's log, for a failed test's report. */
  void dumpLogs(Path dir) {
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
