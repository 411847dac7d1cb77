package dev.conclave.platform.tls;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;

import java.util.List;
import java.util.Optional;

/**
 * TLS with client certificates on the clustered event bus: every member presents its certificate
 * from the cluster CA ({@code CONCLAVE_CLUSTER_TLS_*}) as server and as client, and accepts only
 * certificates chaining to that CA. A process without one cannot open a connection to a member's
 * event-bus port (its handshake fails), and a member never sends to a port that cannot prove it
 * belongs. Vert.x turns host-name checks off on the event bus (members are addressed by IP), so the
 * cluster CA must issue nothing but member certificates. Renewing it takes a rolling restart: the
 * event bus has no way to swap its certificate while it runs.
 */
public final class ClusterTls {

  private final TlsMaterial material;

  private ClusterTls(TlsMaterial material) {
    this.material = material;
  }

  /**
   * Event-bus TLS when the configuration turns it on and the node runs clustered, its files read and
   * checked; a configuration without a usable certificate, key or CA fails with one line.
   */
  public static Optional<ClusterTls> resolve(ConclaveConfig config) {
    if (!config.clusterTls()) {
      EdgeTls.refuseFilesWhenOff(config, NodeSettings.CLUSTER_TLS, List.of(NodeSettings.CLUSTER_TLS_CERT_FILE, NodeSettings.CLUSTER_TLS_KEY_FILE,
        NodeSettings.CLUSTER_TLS_CA_FILE));
      return Optional.empty();
    }
    TlsFiles files = new TlsFiles(EdgeTls.required(config, NodeSettings.CLUSTER_TLS_CERT_FILE, NodeSettings.CLUSTER_TLS),
      EdgeTls.required(config, NodeSettings.CLUSTER_TLS_KEY_FILE, NodeSettings.CLUSTER_TLS),
      Optional.of(EdgeTls.required(config, NodeSettings.CLUSTER_TLS_CA_FILE, NodeSettings.CLUSTER_TLS)));
    return Optional.of(new ClusterTls(files.load()));
  }

  public TlsMaterial material() {
    return material;
  }

  /** The event bus's options with TLS both ways. */
  public EventBusOptions apply(EventBusOptions options) {
    return options.setSsl(true)
      .setKeyCertOptions(material.keyCert())
      .setTrustOptions(material.trust().orElseThrow())
      .setClientAuth(ClientAuth.REQUIRED)
      .setSslHandshakeTimeout(EdgeTls.HANDSHAKE_SECONDS)
      .setSslHandshakeTimeoutUnit(java.util.concurrent.TimeUnit.SECONDS);
  }
}
