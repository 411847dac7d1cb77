package dev.conclave.e2e.console;

import dev.conclave.e2e.support.LocalCluster;

import java.io.IOException;

/**
 * N real node processes with every role (the console shows the gateway, the swarm board and the
 * packs), in one cluster over one PostgreSQL. Node 1 is index 0.
 */
final class ConsoleCluster extends LocalCluster {

  ConsoleCluster(int n) throws IOException {
    super(n, "gateway,coordinator,pack-host", "e2e-console-cluster-secret-0123456789abcdef0123", 5);
  }
}
