package dev.conclave.platform.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.HostAndPort;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.errors.KnownUpstreamFaults;
import dev.conclave.platform.metrics.NodeMetrics;
import dev.conclave.platform.tls.ClusterTls;
import dev.conclave.settings.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;

/**
 * Creates the node's Vert.x: plain when no cluster join is configured, otherwise clustered with
 * Hazelcast (explicit cluster name, TCP-IP members or Kubernetes DNS discovery, no multicast, no
 * auto-detection, graceful shutdown). Code above this never asks which one it got.
 */
public final class VertxBootstrap {

  private static final Logger LOG = LoggerFactory.getLogger(VertxBootstrap.class);

  private VertxBootstrap() {
  }

  /** A Vert.x as the configuration asks, its cluster TLS read from the configuration's files. */
  public static Future<Vertx> create(ConclaveConfig config, NodeMetrics metrics) {
    return create(config, metrics, config.clustered() ? ClusterTls.resolve(config) : Optional.empty(), null);
  }

  /**
   * With the cluster's TLS ({@code tls}, for the event bus) and {@code tracing} (may be null: none)
   * installed on the Vert.x it builds.
   */
  public static Future<Vertx> create(ConclaveConfig config, NodeMetrics metrics, Optional<ClusterTls> tls,
                                     dev.conclave.platform.tracing.NodeTracing tracing) {
    // epoll where it loads (Linux x86-64): less CPU per message than Java NIO, and Unix sockets to
    // an embedded PostgreSQL; anywhere else Vert.x falls back to NIO, and the node says so
    VertxOptions options = new VertxOptions().setMetricsOptions(metrics.vertxOptions()).setPreferNativeTransport(true);
    if (!config.clustered()) {
      LOG.info("cluster: standalone (set {} or {} to cluster)", NodeSettings.CLUSTER_MEMBERS.name(), NodeSettings.CLUSTER_K8S_DNS.name());
      return Future.succeededFuture(reporting(builder(options, metrics, tracing).build()));
    }
    String host = ClusterHost.resolve(config);
    options.getEventBusOptions()
      .setHost(host)
      .setPort(config.eventBusPort())
      .setClusterPublicHost(host)
      .setClusterPublicPort(config.eventBusPort());
    tls.ifPresent(t -> t.apply(options.getEventBusOptions()));
    HazelcastClusterManager manager = new HazelcastClusterManager(hazelcastConfig(config, host));
    LOG.info("cluster: joining name={} host={} hazelcast-port={} eventbus-port={} eventbus-tls={} join={}", config.clusterName(), host,
      config.clusterPort(), config.eventBusPort(),
      tls.map(t -> "client-certificates " + t.material().describe()).orElse("off (plaintext; set CONCLAVE_CLUSTER_TLS_*)"),
      config.clusterK8sDns().map(d -> "kubernetes-dns " + d).orElse("tcp-ip " + config.clusterMembers()));
    return builder(options, metrics, tracing).withClusterManager(manager).buildClustered()
      .recover(failure -> Future.failedFuture(portTaken(failure, config, host)))
      .map(VertxBootstrap::reporting)
      .onSuccess(v -> LOG.info("cluster: joined members={} vertx-node={}", manager.getNodes().size(), manager.getNodeId()));
  }

  private static io.vertx.core.VertxBuilder builder(VertxOptions options, NodeMetrics metrics, dev.conclave.platform.tracing.NodeTracing tracing) {
    io.vertx.core.VertxBuilder builder = Vertx.builder().withMetrics(metrics.vertxFactory());
    if (tracing != null) {
      builder = tracing.install(options, builder);
    }
    return builder.with(options);
  }

  /**
   * A cluster port another process holds, as the setting to change (the node stops with one line
   * naming it instead of a stack trace); any other failure as it is.
   */
  static Throwable portTaken(Throwable failure, ConclaveConfig config, String host) {
    boolean bind = false;
    boolean hazelcast = false;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      bind |= addressInUse(t);
      hazelcast |= t instanceof com.hazelcast.core.HazelcastException;
    }
    if (!bind) {
      return failure;
    }
    String setting = hazelcast ? NodeSettings.CLUSTER_PORT.name() : NodeSettings.EVENTBUS_PORT.name();
    int port = hazelcast ? config.clusterPort() : config.eventBusPort();
    return new ConfigException(setting, "port " + port + " on " + host
      + " is already in use (another process, or another node on this address): choose a free one");
  }

  /** Linux's EADDRINUSE, which the native transport reports as a negative errno. */
  private static final int EADDRINUSE = 98;

  /** A bind that failed because the address is taken: Java NIO's BindException, or the native transport's errno. */
  static boolean addressInUse(Throwable t) {
    return t instanceof java.net.BindException
      || t instanceof io.netty.channel.unix.Errors.NativeIoException n && n.expectedErr() == -EADDRINUSE;
  }

  /**
   * What a handler throws and nobody catches is reported like every other failure: a fault as ERROR
   * with a reference, bad input as a rate-limited WARN line (instead of Vert.x's own "Unhandled exception").
   * A known harmless fault of a library ({@link KnownUpstreamFaults}) is one WARN line saying what it is.
   */
  private static Vertx reporting(Vertx vertx) {
    if (vertx.isNativeTransportEnabled()) {
      LOG.info("transport: native (epoll)");
    } else {
      Throwable why = vertx.unavailableNativeTransportCause();
      LOG.info("transport: Java NIO (the native transport is unavailable: {})", why == null ? "not asked for" : why.toString());
    }
    vertx.exceptionHandler(t -> KnownUpstreamFaults.describe(t).ifPresentOrElse(
      known -> UNHANDLED.warn("known upstream fault, harmless: {}", known),
      () -> Failures.report(UNHANDLED, "a handler", t)));
    return vertx;
  }

  private static final Logger UNHANDLED = LoggerFactory.getLogger("dev.conclave.unhandled");

  static Config hazelcastConfig(ConclaveConfig config, String host) {
    Config hz = ConfigUtil.loadConfig();
    hz.setClusterName(config.clusterName());
    hz.setProperty("hazelcast.logging.type", "slf4j");
    hz.setProperty("hazelcast.phone.home.enabled", "false");
    hz.setProperty("hazelcast.shutdownhook.policy", "GRACEFUL");
    hz.setProperty("hazelcast.graceful.shutdown.max.wait", "20");
    // Hazelcast would otherwise guess a cloud environment and probe for it
    hz.setProperty("hazelcast.discovery.auto.detection.enabled", "false");
    hz.setProperty("hazelcast.heartbeat.interval.seconds", "2");
    hz.setProperty("hazelcast.max.no.heartbeat.seconds", "15");
    // an operation on a partition whose owner died is retried until the new partition table names
    // its backup: at Hazelcast's 500 ms pause that adds up to half a second to every presence read or
    // claim of the dead node's share of agents (a failover is measured in those). A shorter pause
    // with proportionally more retries gives up after as long as before (about 125 s).
    hz.setProperty("hazelcast.invocation.retry.pause.millis", "100");
    hz.setProperty("hazelcast.invocation.max.retry.count", "1250");
    // after a partition heals, the sides find each other (by DNS) at the next merge run, which only the
    // master makes (a lookup and a connection attempt to addresses that are not members): every 2 s
    // bounds that part of the time until presence agrees again (the gateway re-asserts right after);
    // a run can find the other side not ready to merge yet, and at 5 s two such runs took 10 s
    hz.setProperty("hazelcast.merge.first.run.delay.seconds", "5");
    hz.setProperty("hazelcast.merge.next.run.delay.seconds", "2");
    // the members are listed explicitly or found by DNS: no reason to wait before joining
    hz.setProperty("hazelcast.wait.seconds.before.join", "1");

    NetworkConfig network = hz.getNetworkConfig();
    network.setPort(config.clusterPort()).setPortAutoIncrement(false);
    network.setPublicAddress(host + ":" + config.clusterPort());
    network.getInterfaces().setEnabled(true).addInterface(host);
    hz.setProperty("hazelcast.local.localAddress", host);
    // bind where CONCLAVE_CLUSTER_HOST says, not every interface (Hazelcast's default): two members on
    // one machine, at 127.0.0.2:5701 and 127.0.0.3:5701, would otherwise collide on the port
    hz.setProperty("hazelcast.socket.bind.any", "false");

    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    if (config.clusterK8sDns().isPresent()) {
      join.getTcpIpConfig().setEnabled(false);
      join.getKubernetesConfig().setEnabled(true)
        .setProperty("service-dns", config.clusterK8sDns().get())
        .setProperty("service-port", String.valueOf(config.clusterPort()));
    } else {
      join.getKubernetesConfig().setEnabled(false);
      join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(5);
      for (HostAndPort member : config.clusterMembers()) {
        join.getTcpIpConfig().addMember(member.toString());
      }
    }
    return hz;
  }
}
