package dev.conclave.platform.config;

import dev.conclave.settings.ConfigException;
import dev.conclave.settings.Setting;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The node's configuration, read once at start-up from environment variables (declared in
 * {@link NodeSettings}). The components are the values checked together at start-up (ports that must
 * differ, a secret required when clustered …) and the values derived from several settings
 * ({@link #tls()}, {@link #advertisedHost()} …); every other setting, the node's and each service
 * module's alike, is read one way: {@link #get(Setting)} or {@link #find(Setting)}.
 * Parsing fails on the first unusable value with a {@link ConfigException} whose one-line message
 * names the variable.
 */
public record ConclaveConfig(
  Set<RoleName> roles,
  String nodeId,
  int grpcPort,
  int httpPort,
  Path dataDir,
  Optional<PgUrl> pgUrl,
  List<HostAndPort> clusterMembers,
  Optional<String> clusterK8sDns,
  Optional<String> clusterHost,
  int clusterPort,
  Optional<String> authSecret,
  String bindHost,
  Optional<String> publicHost,
  String clusterName,
  int eventBusPort,
  int pgPoolSize,
  int pgPoolWaitQueue,
  int edgeInstances,
  Duration shutdownGrace,
  int maxMessageBytes,
  Map<String, String> source) {

  public ConclaveConfig {
    roles = Collections.unmodifiableSet(EnumSet.copyOf(roles));
    clusterMembers = List.copyOf(clusterMembers);
    source = Map.copyOf(source);
  }

  /**
   * The configuration without its secrets: the signing secret and the raw environment (which holds
   * it and {@code CONCLAVE_SECRETS_KEY}) are left out; the database URL prints without its password.
   */
  @Override
  public String toString() {
    return "ConclaveConfig[roles=" + roles + ", nodeId=" + nodeId + ", grpcPort=" + grpcPort + ", httpPort=" + httpPort
      + ", dataDir=" + dataDir + ", database=" + pgUrl.map(PgUrl::toString).orElse("embedded") + ", clusterMembers=" + clusterMembers
      + ", clusterK8sDns=" + clusterK8sDns.orElse("") + ", authSecret=" + (authSecret.isPresent() ? "(set)" : "(unset)")
      + ", secretsKey=" + (source.containsKey(NodeSettings.SECRETS_KEY.name()) ? "(set)" : "(unset)") + "]";
  }

  /** Reads the configuration from the process environment. */
  public static ConclaveConfig fromEnvironment() {
    return from(System.getenv());
  }

  /** Reads the configuration from the given variables; absent or blank variables take their defaults. */
  public static ConclaveConfig from(Map<String, String> env) {
    Set<RoleName> roles = NodeSettings.ROLES.get(env);
    String nodeId = NodeSettings.NODE_ID.find(env).orElseGet(ConclaveConfig::defaultNodeId);
    int grpcPort = NodeSettings.GRPC_PORT.get(env);
    int httpPort = NodeSettings.HTTP_PORT.get(env);
    if (grpcPort != 0 && grpcPort == httpPort) {
      throw new ConfigException(NodeSettings.HTTP_PORT.name(), "must differ from " + NodeSettings.GRPC_PORT.name() + " (both are " + grpcPort + ")");
    }
    Path dataDir = NodeSettings.DATA_DIR.get(env).toAbsolutePath().normalize();
    Optional<PgUrl> pgUrl = NodeSettings.PG_URL.find(env);
    int clusterPort = NodeSettings.CLUSTER_PORT.get(env);
    List<HostAndPort> members = members(NodeSettings.CLUSTER_MEMBERS.find(env), clusterPort);
    Optional<String> k8sDns = NodeSettings.CLUSTER_K8S_DNS.find(env);
    if (!members.isEmpty() && k8sDns.isPresent()) {
      throw new ConfigException(NodeSettings.CLUSTER_K8S_DNS.name(), "set either it or " + NodeSettings.CLUSTER_MEMBERS.name() + ", not both");
    }
    Optional<String> secret = NodeSettings.AUTH_SECRET.find(env);
    // parsed now so that a wrong value stops start-up; read again where they are used
    for (Setting<?> checked : List.of(NodeSettings.SECRETS_KEY, NodeSettings.SSH_UNKNOWN_KEYS, NodeSettings.MAX_EVENT_BYTES,
      NodeSettings.AUDIT_RETENTION, NodeSettings.UNAUTHENTICATED_TIMEOUT, NodeSettings.HTTP_IDLE_TIMEOUT,
      NodeSettings.MAX_CALLS_PER_PRINCIPAL, NodeSettings.MAX_CONNECTIONS_PER_PRINCIPAL, NodeSettings.TLS, NodeSettings.CLUSTER_TLS,
      NodeSettings.LOG_FORMAT)) {
      checked.find(env);
    }
    boolean clustered = !members.isEmpty() || k8sDns.isPresent();
    if (clustered && secret.isEmpty()) {
      throw new ConfigException(NodeSettings.AUTH_SECRET.name(), "must be set when the node runs clustered, so that every node accepts every node's tokens");
    }
    int eventBusPort = NodeSettings.EVENTBUS_PORT.get(env);
    if (clustered && eventBusPort == clusterPort) {
      throw new ConfigException(NodeSettings.EVENTBUS_PORT.name(), "must differ from " + NodeSettings.CLUSTER_PORT.name() + " (both are " + clusterPort + ")");
    }
    return new ConclaveConfig(
      roles,
      nodeId,
      grpcPort,
      httpPort,
      dataDir,
      pgUrl,
      members,
      k8sDns,
      NodeSettings.CLUSTER_HOST.find(env),
      clusterPort,
      secret,
      NodeSettings.BIND_HOST.get(env),
      NodeSettings.PUBLIC_HOST.find(env),
      NodeSettings.CLUSTER_NAME.get(env),
      eventBusPort,
      NodeSettings.PG_POOL_SIZE.get(env),
      NodeSettings.PG_POOL_WAIT_QUEUE.get(env),
      NodeSettings.EDGE_INSTANCES.get(env),
      NodeSettings.SHUTDOWN_GRACE.get(env),
      NodeSettings.MAX_MESSAGE_BYTES.get(env),
      env);
  }

  /** A declared setting's value in this configuration, else its default. */
  public <T> T get(Setting<T> setting) {
    return setting.get(source);
  }

  /** A declared setting's value in this configuration, when it is set. */
  public <T> Optional<T> find(Setting<T> setting) {
    return setting.find(source);
  }

  /** True when a cluster join method is configured. */
  public boolean clustered() {
    return !clusterMembers.isEmpty() || clusterK8sDns.isPresent();
  }

  /** TLS on the gRPC and HTTP ports: {@code CONCLAVE_TLS}, else on when {@code CONCLAVE_TLS_CERT_FILE} is set. */
  public boolean tls() {
    return find(NodeSettings.TLS).orElseGet(() -> find(NodeSettings.TLS_CERT_FILE).isPresent());
  }

  /** TLS on the event bus: {@code CONCLAVE_CLUSTER_TLS}, else on when {@code CONCLAVE_CLUSTER_TLS_CERT_FILE} is set. */
  public boolean clusterTls() {
    return find(NodeSettings.CLUSTER_TLS).orElseGet(() -> find(NodeSettings.CLUSTER_TLS_CERT_FILE).isPresent());
  }

  /** The scheme of the URLs this node hands out for its HTTP port. */
  public String httpScheme() {
    return tls() ? "https" : "http";
  }

  public boolean runs(RoleName role) {
    return roles.contains(role);
  }

  /** Host that clients use to reach this node, for URLs handed out to them. */
  public String advertisedHost() {
    return publicHost.or(() -> clusterHost).orElse("localhost");
  }

  public Path adminTokenFile() {
    return dataDir.resolve("admin.token");
  }

  public Path embeddedPgDir() {
    return dataDir.resolve("pg");
  }

  private static List<HostAndPort> members(Optional<String> raw, int defaultPort) {
    if (raw.isEmpty()) {
      return List.of();
    }
    List<HostAndPort> members = new ArrayList<>();
    for (String part : raw.get().split(",")) {
      members.add(HostAndPort.parse(NodeSettings.CLUSTER_MEMBERS.name(), part, defaultPort));
    }
    return members;
  }

  private static String defaultNodeId() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "node";
    }
    host = host.replaceAll("[^A-Za-z0-9._-]", "-");
    if (host.isEmpty() || !Character.isLetterOrDigit(host.charAt(0))) {
      host = "node" + host;
    }
    if (host.length() > 50) {
      host = host.substring(0, 50);
    }
    byte[] suffix = new byte[3];
    new SecureRandom().nextBytes(suffix);
    return host + "-" + HexFormat.of().formatHex(suffix);
  }
}
