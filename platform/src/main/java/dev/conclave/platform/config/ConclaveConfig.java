package dev.conclave.platform.config;

import dev.conclave.platform.db.PgUrl;

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
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The node's configuration, read once at start-up from environment variables (see {@link ConfigKey}).
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

  private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
  public static final int MIN_SECRET_LENGTH = 32;
  public static final int SECRETS_KEY_BYTES = 32;

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
      + ", secretsKey=" + (source.containsKey(ConfigKey.SECRETS_KEY.env()) ? "(set)" : "(unset)") + "]";
  }

  /** How long the audit log keeps entries ({@code CONCLAVE_AUDIT_RETENTION_DAYS}, default 90 days). */
  public Duration auditRetention() {
    return Duration.ofDays(raw(ConfigKey.AUDIT_RETENTION.env()).map(v -> Values.positive(ConfigKey.AUDIT_RETENTION.env(), v)).orElse(90));
  }

  /** Reads the configuration from the process environment. */
  public static ConclaveConfig fromEnvironment() {
    return from(System.getenv());
  }

  /** Reads the configuration from the given variables; absent or blank variables take their defaults. */
  public static ConclaveConfig from(Map<String, String> env) {
    Reader r = new Reader(env);
    Set<RoleName> roles = r.roles();
    String nodeId = r.text(ConfigKey.NODE_ID).map(v -> r.matching(ConfigKey.NODE_ID, v, NODE_ID,
      "letters, digits, '.', '_' or '-', at most 63, starting with a letter or digit")).orElseGet(Reader::defaultNodeId);
    int grpcPort = r.port(ConfigKey.GRPC_PORT, 50051);
    int httpPort = r.port(ConfigKey.HTTP_PORT, 8080);
    if (grpcPort != 0 && grpcPort == httpPort) {
      throw new ConfigException(ConfigKey.HTTP_PORT.env(), "must differ from " + ConfigKey.GRPC_PORT.env() + " (both are " + grpcPort + ")");
    }
    Path dataDir = Path.of(r.text(ConfigKey.DATA_DIR).orElse("./data")).toAbsolutePath().normalize();
    Optional<PgUrl> pgUrl = r.text(ConfigKey.PG_URL).map(v -> PgUrl.parse(ConfigKey.PG_URL.env(), v));
    int clusterPort = r.port(ConfigKey.CLUSTER_PORT, 5701);
    List<HostAndPort> members = r.members(clusterPort);
    Optional<String> k8sDns = r.text(ConfigKey.CLUSTER_K8S_DNS);
    if (!members.isEmpty() && k8sDns.isPresent()) {
      throw new ConfigException(ConfigKey.CLUSTER_K8S_DNS.env(), "set either it or " + ConfigKey.CLUSTER_MEMBERS.env() + ", not both");
    }
    Optional<String> secret = r.text(ConfigKey.AUTH_SECRET);
    if (secret.isPresent() && secret.get().length() < MIN_SECRET_LENGTH) {
      throw new ConfigException(ConfigKey.AUTH_SECRET.env(), "must be at least " + MIN_SECRET_LENGTH + " characters, got " + secret.get().length());
    }
    r.text(ConfigKey.SECRETS_KEY).ifPresent(ConclaveConfig::decodeSecretsKey);
    r.text(ConfigKey.SSH_UNKNOWN_KEYS).ifPresent(ConclaveConfig::unknownKeyPolicy);
    r.text(ConfigKey.MAX_EVENT_BYTES).ifPresent(ConclaveConfig::maxEventBytes);
    for (ConfigKey key : EDGE_LIMITS) {
      r.text(key).ifPresent(v -> Values.positive(key.env(), v));
    }
    boolean clustered = !members.isEmpty() || k8sDns.isPresent();
    if (clustered && secret.isEmpty()) {
      throw new ConfigException(ConfigKey.AUTH_SECRET.env(), "must be set when the node runs clustered, so that every node accepts every node's tokens");
    }
    int eventBusPort = r.port(ConfigKey.EVENTBUS_PORT, 5711);
    if (clustered && eventBusPort == clusterPort) {
      throw new ConfigException(ConfigKey.EVENTBUS_PORT.env(), "must differ from " + ConfigKey.CLUSTER_PORT.env() + " (both are " + clusterPort + ")");
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
      r.text(ConfigKey.CLUSTER_HOST),
      clusterPort,
      secret,
      r.text(ConfigKey.BIND_HOST).orElse("0.0.0.0"),
      r.text(ConfigKey.PUBLIC_HOST),
      r.text(ConfigKey.CLUSTER_NAME).map(v -> r.matching(ConfigKey.CLUSTER_NAME, v, NAME, "letters, digits, '.', '_' or '-'")).orElse("conclave"),
      eventBusPort,
      r.positive(ConfigKey.PG_POOL_SIZE, 16),
      r.positive(ConfigKey.PG_POOL_WAIT_QUEUE, 4096),
      r.positive(ConfigKey.EDGE_INSTANCES, Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()))),
      Duration.ofSeconds(r.positive(ConfigKey.SHUTDOWN_GRACE, 10)),
      r.positive(ConfigKey.MAX_MESSAGE_BYTES, 4 * 1024 * 1024),
      env);
  }

  /** True when a cluster join method is configured. */
  public boolean clustered() {
    return !clusterMembers.isEmpty() || clusterK8sDns.isPresent();
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

  /**
   * {@code CONCLAVE_SECRETS_KEY} decoded to its 32 bytes, when set ({@link #from} rejects other values).
   * Required when clustered; that is checked where the key is used (the node's start), because the
   * CLI reads this configuration too and never needs the key.
   */
  public Optional<byte[]> secretsKey() {
    return raw(ConfigKey.SECRETS_KEY.env()).map(ConclaveConfig::decodeSecretsKey);
  }

  private static byte[] decodeSecretsKey(String base64) {
    return Values.base64Key(ConfigKey.SECRETS_KEY.env(), base64, SECRETS_KEY_BYTES);
  }

  /**
   * {@code CONCLAVE_SSH_UNKNOWN_KEYS}: what an SSH-signed agent call with an unknown key gets, one of
   * {@link #UNKNOWN_KEY_POLICIES} ({@link #from} rejects other values); {@code pending} when unset.
   */
  public String sshUnknownKeys() {
    return raw(ConfigKey.SSH_UNKNOWN_KEYS.env()).map(ConclaveConfig::unknownKeyPolicy).orElse("pending");
  }

  public static final List<String> UNKNOWN_KEY_POLICIES = List.of("reject", "pending", "approve");

  private static String unknownKeyPolicy(String value) {
    String policy = value.trim().toLowerCase(Locale.ROOT);
    if (!UNKNOWN_KEY_POLICIES.contains(policy)) {
      throw new ConfigException(ConfigKey.SSH_UNKNOWN_KEYS.env(), "must be one of " + String.join(", ", UNKNOWN_KEY_POLICIES) + ", got '" + value + "'");
    }
    return policy;
  }

  /** Largest stored event and page entry: {@code CONCLAVE_MAX_EVENT_BYTES}, at most {@link #MAX_EVENT_BYTES_CEILING}. */
  public int maxEventBytes() {
    return raw(ConfigKey.MAX_EVENT_BYTES.env()).map(ConclaveConfig::maxEventBytes).orElse(1024 * 1024);
  }

  /** Half the 4 MiB gRPC clients accept by default: a page of history (itself capped at this) always fits. */
  public static final int MAX_EVENT_BYTES_CEILING = 2 * 1024 * 1024;

  private static int maxEventBytes(String value) {
    int bytes = Values.positive(ConfigKey.MAX_EVENT_BYTES.env(), value);
    if (bytes > MAX_EVENT_BYTES_CEILING) {
      throw new ConfigException(ConfigKey.MAX_EVENT_BYTES.env(), "must be at most " + MAX_EVENT_BYTES_CEILING
        + ", so that a page of history fits in the 4 MiB gRPC clients accept, got " + bytes);
    }
    return bytes;
  }

  private static final List<ConfigKey> EDGE_LIMITS = List.of(ConfigKey.UNAUTHENTICATED_TIMEOUT, ConfigKey.HTTP_IDLE_TIMEOUT,
    ConfigKey.MAX_CALLS_PER_PRINCIPAL, ConfigKey.MAX_CONNECTIONS_PER_PRINCIPAL);

  /** {@code CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS}. */
  public Duration unauthenticatedTimeout() {
    return Duration.ofSeconds(positive(ConfigKey.UNAUTHENTICATED_TIMEOUT));
  }

  /** {@code CONCLAVE_HTTP_IDLE_SECONDS}. */
  public Duration httpIdleTimeout() {
    return Duration.ofSeconds(positive(ConfigKey.HTTP_IDLE_TIMEOUT));
  }

  /** {@code CONCLAVE_MAX_CALLS_PER_PRINCIPAL}. */
  public int maxCallsPerPrincipal() {
    return positive(ConfigKey.MAX_CALLS_PER_PRINCIPAL);
  }

  /** {@code CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL}. */
  public int maxConnectionsPerPrincipal() {
    return positive(ConfigKey.MAX_CONNECTIONS_PER_PRINCIPAL);
  }

  /** A positive whole-number setting, its documented default when unset ({@link #from} has checked it). */
  private int positive(ConfigKey key) {
    return Values.positive(key.env(), raw(key.env()).orElse(key.documentedDefault()));
  }

  /** A raw variable, for service modules that read their own keys. */
  public Optional<String> raw(String variable) {
    String value = source.get(variable);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
  }

  private static final class Reader {
    private final Map<String, String> env;

    Reader(Map<String, String> env) {
      this.env = env;
    }

    Optional<String> text(ConfigKey key) {
      String value = env.get(key.env());
      return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.trim());
    }

    int port(ConfigKey key, int fallback) {
      return text(key).map(v -> Values.port(key.env(), v, true)).orElse(fallback);
    }

    int positive(ConfigKey key, int fallback) {
      return text(key).map(v -> Values.positive(key.env(), v)).orElse(fallback);
    }

    String matching(ConfigKey key, String value, Pattern pattern, String rule) {
      if (!pattern.matcher(value).matches()) {
        throw new ConfigException(key.env(), "'" + value + "' is not valid: use " + rule);
      }
      return value;
    }

    Set<RoleName> roles() {
      Optional<String> raw = text(ConfigKey.ROLES);
      if (raw.isEmpty()) {
        return EnumSet.allOf(RoleName.class);
      }
      EnumSet<RoleName> roles = EnumSet.noneOf(RoleName.class);
      for (String part : raw.get().split(",")) {
        String id = part.trim().toLowerCase(Locale.ROOT);
        if (id.isEmpty()) {
          continue;
        }
        roles.add(RoleName.of(id).orElseThrow(() ->
          new ConfigException(ConfigKey.ROLES.env(), "unknown role '" + part.trim() + "' (known: " + RoleName.known() + ")")));
      }
      if (roles.isEmpty()) {
        throw new ConfigException(ConfigKey.ROLES.env(), "names no role (known: " + RoleName.known() + ")");
      }
      return roles;
    }

    List<HostAndPort> members(int defaultPort) {
      Optional<String> raw = text(ConfigKey.CLUSTER_MEMBERS);
      if (raw.isEmpty()) {
        return List.of();
      }
      List<HostAndPort> members = new ArrayList<>();
      for (String part : raw.get().split(",")) {
        members.add(HostAndPort.parse(ConfigKey.CLUSTER_MEMBERS.env(), part, defaultPort));
      }
      return members;
    }

    static String defaultNodeId() {
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
}
