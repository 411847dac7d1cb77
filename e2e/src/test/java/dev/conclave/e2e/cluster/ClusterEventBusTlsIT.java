package dev.conclave.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conclave.platform.tls.DevCertificates;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusterIT}'s cross-node tests on three node processes whose event bus runs over TLS with
 * client certificates from a cluster CA ({@code CONCLAVE_CLUSTER_TLS_*}): requests, events, failover
 * and presence between nodes work exactly as over plaintext.
 */
class ClusterEventBusTlsIT extends ClusterIT {

  /** ClusterIT's cluster, its event bus over TLS (ClusterIT's own start leaves a subclass's cluster to it). */
  @BeforeAll
  static void startOverTls() throws Exception {
    DevCertificates certs = DevCertificates.generate(Files.createTempDirectory("conclave-cluster-tls"), List.of("localhost", "127.0.0.1"));
    startWith(new Cluster(3, Map.of("CONCLAVE_CLUSTER_TLS_CERT_FILE", certs.clusterCert().toString(),
        "CONCLAVE_CLUSTER_TLS_KEY_FILE", certs.clusterKey().toString(),
        "CONCLAVE_CLUSTER_TLS_CA_FILE", certs.clusterCaCert().toString())));
  }

  @Test
  @Order(0)
  void everyNodeRunsItsEventBusOverTls() {
    for (int i = 0; i < cluster.size(); i++) {
      assertThat(cluster.node(i).logText()).as("node " + i + "'s start-up").contains("eventbus-tls=client-certificates");
    }
  }
}
