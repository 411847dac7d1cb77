package dev.conclave.e2e.packs;

import dev.conclave.e2e.support.LocalCluster;

import java.io.IOException;

/** N real node processes on 127.0.0.1 running the gateway and the pack host, in one cluster over one PostgreSQL. */
final class PackCluster extends LocalCluster {

  PackCluster(int n) throws IOException {
    super(n, "gateway,pack-host", "e2e-pack-cluster-secret-0123456789abcdef012345", 8);
  }
}
