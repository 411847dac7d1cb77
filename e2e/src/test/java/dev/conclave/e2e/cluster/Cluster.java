package dev.conclave.e2e.cluster;

import dev.conclave.e2e.support.LocalCluster;

import java.io.IOException;
import java.util.Map;

/** N real gateway nodes on 127.0.0.1 forming one Hazelcast cluster over one PostgreSQL. */
final class Cluster extends LocalCluster {

  Cluster(int n) throws IOException {
    this(n, Map.of());
  }

  /** With {@code extraEnv} in every node's environment (the event bus's TLS, for example). */
  Cluster(int n, Map<String, String> extraEnv) throws IOException {
    super(n, "gateway", "e2e-cluster-secret-0123456789abcdef0123456789", 8, extraEnv);
  }
}
