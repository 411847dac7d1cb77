package dev.conclave.packs.support;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;

import java.util.concurrent.CompletableFuture;

/** Two nodes in one Hazelcast cluster (in this JVM) over one PostgreSQL, each running the gateway and the pack host. */
public final class TwoNodes implements AutoCloseable {

  static final String SECRET = "pack-host-cluster-test-secret-0123456789abcdef";

  private final PackHost a;
  private final PackHost b;

  private TwoNodes(PackHost a, PackHost b) {
    this.a = a;
    this.b = b;
  }

  public static TwoNodes start() {
    PgUrl db = TestDatabase.freshDatabase();
    int hzA = FreePorts.next();
    int hzB = FreePorts.next();
    String members = "127.0.0.1:" + hzA + ",127.0.0.1:" + hzB;
    CompletableFuture<PackHost> first = CompletableFuture.supplyAsync(() -> PackHost.start(builder(db, members, hzA, "node-a")));
    CompletableFuture<PackHost> second = CompletableFuture.supplyAsync(() -> PackHost.start(builder(db, members, hzB, "node-b")));
    return new TwoNodes(first.join(), second.join());
  }

  private static TestNode.Builder builder(PgUrl db, String members, int hazelcastPort, String nodeId) {
    return TestNode.builder()
      .database(db)
      .env("CONCLAVE_NODE_ID", nodeId)
      .env("CONCLAVE_CLUSTER_MEMBERS", members)
      .env("CONCLAVE_CLUSTER_HOST", "127.0.0.1")
      .env("CONCLAVE_CLUSTER_PORT", Integer.toString(hazelcastPort))
      .env("CONCLAVE_EVENTBUS_PORT", Integer.toString(FreePorts.next()))
      .env("CONCLAVE_AUTH_SECRET", SECRET)
      .env("CONCLAVE_ASK_USER_TIMEOUT_SECONDS", "20");
  }

  public PackHost a() {
    return a;
  }

  public PackHost b() {
    return b;
  }

  public GatewayFixture gwA() {
    return a.gw();
  }

  @Override
  public void close() {
    CompletableFuture.allOf(CompletableFuture.runAsync(b::close), CompletableFuture.runAsync(a::close)).join();
  }
}
