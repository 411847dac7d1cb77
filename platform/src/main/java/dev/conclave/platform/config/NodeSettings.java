package dev.conclave.platform.config;

import dev.conclave.settings.ConfigException;
import dev.conclave.settings.Parsers;
import dev.conclave.settings.Setting;
import dev.conclave.settings.Setting.Reader;
import dev.conclave.settings.SettingCatalogue;
import dev.conclave.settings.Values;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The settings the platform kernel reads (every node), declared once. The first ten are the
 * configuration contract (ARCHITECTURE.md); their names never change. Service modules declare their
 * own in their own catalogue (for example {@code GatewaySettings}). The descriptions are the README's.
 */
public final class NodeSettings {

  private NodeSettings() {
  }

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
  private static final String NAME_RULE = "letters, digits, '.', '_' or '-', at most 63, starting with a letter or digit";
  /** The values {@link #SSH_UNKNOWN_KEYS} takes (declared before it: its default is parsed when the class loads). */
  public static final List<String> UNKNOWN_KEY_POLICIES = List.of("reject", "pending", "approve");
  /** Half the 4 MiB gRPC clients accept by default: a page of history (itself capped at this) always fits. */
  public static final int MAX_EVENT_BYTES_CEILING = 2 * 1024 * 1024;
  /** The shortest signing secret accepted ({@link #AUTH_SECRET}, and each key of a key ring). */
  public static final int MIN_SECRET_LENGTH = 32;
  /** The length of {@link #SECRETS_KEY}, in bytes: an AES-256 key. */
  public static final int SECRETS_KEY_BYTES = 32;

  public static final Setting<Set<RoleName>> ROLES = Setting.define("CONCLAVE_ROLES", NodeSettings::roles)
    .readBy(Reader.NODE).describedAs("which services this node runs")
    .byDefault("gateway,coordinator,pack-host");
  public static final Setting<String> NODE_ID = Setting.define("CONCLAVE_NODE_ID", NodeSettings::name)
    .readBy(Reader.NODE).describedAs("this node's name in logs, `Welcome.server_id` and presence")
    .noDefault("host name plus a short random suffix");
  public static final Setting<Integer> GRPC_PORT = Setting.define("CONCLAVE_GRPC_PORT", Parsers.PORT)
    .readBy(Reader.NODE).describedAs("gRPC: every service in `coven.proto`, plus `grpc.health.v1` and reflection")
    .byDefault("50051");
  public static final Setting<Integer> HTTP_PORT = Setting.define("CONCLAVE_HTTP_PORT", Parsers.PORT)
    .readBy(Reader.NODE, Reader.CLI)
    .describedAs("HTTP: REST APIs, WebSocket event-bus bridge, dashboard, MCP, `/health/live`, `/health/ready`, `/metrics`")
    .byDefault("8080");
  public static final Setting<Path> DATA_DIR = Setting.define("CONCLAVE_DATA_DIR", Parsers.PATH)
    .readBy(Reader.NODE, Reader.CLI).describedAs("local data, including the embedded PostgreSQL cluster")
    .byDefault("./data");
  public static final Setting<PgUrl> PG_URL = Setting.define("CONCLAVE_PG_URL", PgUrl::parse)
    .readBy(Reader.NODE)
    .describedAs("external PostgreSQL, `postgresql://user:pass@host:port/db`; unset starts embedded PostgreSQL in the data dir")
    .noDefault("unset");
  public static final Setting<String> CLUSTER_MEMBERS = Setting.define("CONCLAVE_CLUSTER_MEMBERS", Parsers.TEXT)
    .readBy(Reader.NODE)
    .describedAs("comma-separated `host:port` Hazelcast members (TCP-IP join); when set, the node runs clustered")
    .noDefault("unset");
  public static final Setting<String> CLUSTER_K8S_DNS = Setting.define("CONCLAVE_CLUSTER_K8S_DNS", Parsers.TEXT)
    .readBy(Reader.NODE)
    .describedAs("headless Service DNS name for Hazelcast Kubernetes DNS discovery; when set, the node runs clustered")
    .noDefault("unset");
  public static final Setting<String> CLUSTER_HOST = Setting.define("CONCLAVE_CLUSTER_HOST", Parsers.TEXT)
    .readBy(Reader.NODE).describedAs("this member's bind and advertised address")
    .noDefault("detected");
  public static final Setting<Integer> CLUSTER_PORT = Setting.define("CONCLAVE_CLUSTER_PORT", Parsers.PORT)
    .readBy(Reader.NODE).describedAs("this member's Hazelcast port")
    .byDefault("5701");
  public static final Setting<String> AUTH_SECRET = Setting.define("CONCLAVE_AUTH_SECRET", NodeSettings::authSecret)
    .readBy(Reader.NODE, Reader.CLI)
    .describedAs("key for signing tokens, at least 32 characters; required when clustered; unset on a single node generates one into the data dir")
    .noDefault("unset");
  public static final Setting<byte[]> SECRETS_KEY = Setting.define("CONCLAVE_SECRETS_KEY",
      (variable, text) -> Values.base64Key(variable, text, SECRETS_KEY_BYTES))
    .readBy(Reader.NODE)
    .describedAs("key that agents' secrets are encrypted with (AES-256-GCM), the base64 of 32 bytes (`openssl rand -base64 32`); "
      + "required when clustered, the same on every node; unset on a single node generates one into the data dir. "
      + "A key that is not the one the database's secrets were written with stops start-up")
    .noDefault("unset");

  // Additions beyond the contract.
  public static final Setting<String> BIND_HOST = Setting.define("CONCLAVE_BIND_HOST", Parsers.TEXT)
    .readBy(Reader.NODE).describedAs("address the gRPC and HTTP servers listen on; the default keeps a laptop's node off the network, "
      + "the container image and the Kubernetes manifests set `0.0.0.0`")
    .byDefault("127.0.0.1");
  public static final Setting<String> PUBLIC_HOST = Setting.define("CONCLAVE_PUBLIC_HOST", Parsers.TEXT)
    .readBy(Reader.NODE).describedAs("host name agents and browsers use to reach this node, in URLs the node hands out")
    .noDefault("the cluster host, else `localhost`");
  public static final Setting<String> CLUSTER_NAME = Setting.define("CONCLAVE_CLUSTER_NAME", NodeSettings::name)
    .readBy(Reader.NODE).describedAs("Hazelcast cluster name; nodes only join members with the same name")
    .byDefault("conclave");
  public static final Setting<Integer> EVENTBUS_PORT = Setting.define("CONCLAVE_EVENTBUS_PORT", Parsers.PORT)
    .readBy(Reader.NODE).describedAs("fixed port of the clustered event bus")
    .byDefault("5711");
  public static final Setting<Integer> PG_POOL_SIZE = Setting.define("CONCLAVE_PG_POOL_SIZE", Parsers.POSITIVE)
    .readBy(Reader.NODE).describedAs("connections in the node's one shared PostgreSQL pool")
    .byDefault("16");
  public static final Setting<Integer> PG_POOL_WAIT_QUEUE = Setting.define("CONCLAVE_PG_POOL_WAIT_QUEUE", Parsers.POSITIVE)
    .readBy(Reader.NODE).describedAs("requests that may wait for a pooled connection before new ones fail fast (`UNAVAILABLE`, retry)")
    .byDefault("4096");
  public static final Setting<Integer> EDGE_INSTANCES = Setting.define("CONCLAVE_EDGE_INSTANCES", Parsers.POSITIVE)
    .readBy(Reader.NODE).describedAs("server verticle instances sharing the gRPC and HTTP ports")
    .computed("number of cores, at most 4", () -> Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors())));
  public static final Setting<Duration> SHUTDOWN_GRACE = Setting.define("CONCLAVE_SHUTDOWN_GRACE_SECONDS", Parsers.SECONDS)
    .readBy(Reader.NODE).describedAs("how long a stopping node lets in-flight work finish")
    .byDefault("10");
  public static final Setting<Integer> MAX_MESSAGE_BYTES = Setting.define("CONCLAVE_MAX_MESSAGE_BYTES", Parsers.POSITIVE)
    .readBy(Reader.NODE).describedAs("largest gRPC message accepted, after decompression; larger ones get `RESOURCE_EXHAUSTED`")
    .byDefault("4194304");
  public static final Setting<Integer> MAX_EVENT_BYTES = Setting.define("CONCLAVE_MAX_EVENT_BYTES", NodeSettings::maxEventBytes)
    .readBy(Reader.NODE)
    .describedAs("largest message or agent event stored in a conversation's history (at most 2097152, so a page of history fits "
      + "in what gRPC clients accept); larger ones get `RESOURCE_EXHAUSTED`")
    .byDefault("1048576");
  public static final Setting<Duration> UNAUTHENTICATED_TIMEOUT = Setting.define("CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS", Parsers.SECONDS)
    .readBy(Reader.NODE)
    .describedAs("a gRPC connection on which no call has authenticated, or an event-bus bridge socket on which no caller has, within this time is closed")
    .byDefault("10");
  public static final Setting<Duration> HTTP_IDLE_TIMEOUT = Setting.define("CONCLAVE_HTTP_IDLE_SECONDS", Parsers.SECONDS)
    .readBy(Reader.NODE)
    .describedAs("an HTTP connection (REST, console, event-bus bridge) with no traffic for this long is closed; the bridge's pings keep dashboards open")
    .byDefault("60");
  public static final Setting<Duration> HTTP_HEADER_TIMEOUT = Setting.define("CONCLAVE_HTTP_HEADER_SECONDS", Parsers.SECONDS)
    .readBy(Reader.NODE)
    .describedAs("an HTTP request (REST, console, MCP, event-bus bridge, WebSocket upgrades) whose request line and headers have not "
      + "all arrived this long after its connection opened or its previous request ended is answered 408 and its connection closed, "
      + "however steadily its bytes trickle in")
    .byDefault("10");
  public static final Setting<Duration> HTTP_BODY_TIMEOUT = Setting.define("CONCLAVE_HTTP_BODY_SECONDS", Parsers.SECONDS)
    .readBy(Reader.NODE)
    .describedAs("an HTTP request body that has not all arrived this long after its headers is answered 408 and its connection "
      + "closed; WebSockets, SockJS and responses that stream are not bounded by it")
    .byDefault("30");
  public static final Setting<Integer> MAX_CALLS_PER_PRINCIPAL = Setting.define("CONCLAVE_MAX_CALLS_PER_PRINCIPAL", Parsers.POSITIVE)
    .readBy(Reader.NODE).describedAs("gRPC calls one principal may have in progress on one node; more get `RESOURCE_EXHAUSTED`. "
      + "One HTTP/2 connection to the gRPC port carries at most this many calls plus one at once (and never fewer than 1,000), so the principal's limit is met first")
    .byDefault("10000");
  public static final Setting<Integer> MAX_CONNECTIONS_PER_PRINCIPAL = Setting.define("CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL", Parsers.POSITIVE)
    .readBy(Reader.NODE)
    .describedAs("connections one principal may hold per node: gRPC connections with a call of its in progress and its WebSockets "
      + "(sessions, event-bus bridge), together; more are refused (`RESOURCE_EXHAUSTED`, 429)")
    .byDefault("1000");
  public static final Setting<Duration> AUDIT_RETENTION = Setting.define("CONCLAVE_AUDIT_RETENTION_DAYS", Parsers.DAYS)
    .readBy(Reader.NODE).describedAs("how long the audit log (`GET /api/v1/audit`, admins) keeps entries")
    .byDefault("90");
  public static final Setting<Duration> TOKEN_RETENTION = Setting.define("CONCLAVE_TOKEN_RETENTION_DAYS", Parsers.DAYS)
    .readBy(Reader.NODE).describedAs("expired and revoked tokens are deleted this long after they expired or were revoked "
      + "(a live token never is); see docs/operations.md, Data growth and retention")
    .byDefault("30");
  public static final Setting<Integer> RETENTION_BATCH = Setting.define("CONCLAVE_RETENTION_BATCH", Parsers.POSITIVE)
    .readBy(Reader.NODE).describedAs("rows retention deletes per statement, each batch its own short transaction")
    .byDefault("5000");
  public static final Setting<Duration> RETENTION_INTERVAL = Setting.define("CONCLAVE_RETENTION_INTERVAL_SECONDS", Parsers.SECONDS)
    .readBy(Reader.NODE).describedAs("how often retention runs (on one node of the cluster at a time)")
    .byDefault("600");
  public static final Setting<java.nio.file.Path> RETENTION_ARCHIVE_DIR = Setting.define("CONCLAVE_RETENTION_ARCHIVE_DIR", Parsers.PATH)
    .readBy(Reader.NODE).describedAs("a directory retention writes what it deletes to before deleting it, as gzip NDJSON, one file per "
      + "kind per day (`events-2026-12-05.ndjson.gz`); a conversation comes back from it with `./conclave restore`")
    .noDefault("off: deleted rows are not kept");
  public static final Setting<String> SSH_UNKNOWN_KEYS = Setting.define("CONCLAVE_SSH_UNKNOWN_KEYS", NodeSettings::unknownKeyPolicy)
    .readBy(Reader.NODE)
    .describedAs("what an agent signing its gRPC calls with an SSH key (`x-ssh-*` headers, as coven agents do) gets when no agent "
      + "principal has that key: `reject` (`UNAUTHENTICATED`), `pending` (a pending agent principal is created; an admin approves it) "
      + "or `approve` (an approved agent principal at once: anyone who reaches the gRPC port becomes an agent)")
    .byDefault("pending");
  public static final Setting<Duration> AUTH_FAILURE_WINDOW = Setting.define("CONCLAVE_AUTH_FAILURE_WINDOW_SECONDS", Parsers.SECONDS)
    .readBy(Reader.NODE)
    .describedAs("failed authentications are audited once per source address and reason per window of this length, as they happen, "
      + "and the rest of the window's as one entry with their count when it ends (`auth.failed`); each is counted in "
      + "`conclave_auth_failures_total`")
    .byDefault("60");
  public static final Setting<Integer> AUTH_FAILURE_SOURCES = Setting.define("CONCLAVE_AUTH_FAILURE_SOURCES", Parsers.POSITIVE)
    .readBy(Reader.NODE)
    .describedAs("source address and reason pairs a node audits failed authentications of separately per window; failures from "
      + "further sources are audited together, with source `*`")
    .byDefault("100");
  public static final Setting<Integer> SSH_PENDING_MAX = Setting.define("CONCLAVE_SSH_PENDING_MAX", Parsers.POSITIVE)
    .readBy(Reader.NODE)
    .describedAs("pending agent principals that unknown SSH keys may create, in all (`CONCLAVE_SSH_UNKNOWN_KEYS=pending`); further "
      + "unknown keys are refused (`RESOURCE_EXHAUSTED`, `ssh_pending_limit`) until an admin approves or deletes some")
    .byDefault("100");
  public static final Setting<Integer> SSH_NEW_KEYS_PER_HOUR = Setting.define("CONCLAVE_SSH_NEW_KEYS_PER_HOUR", Parsers.POSITIVE)
    .readBy(Reader.NODE)
    .describedAs("agent principals one source address may create from unknown SSH keys per hour on one node (policies `pending` "
      + "and `approve`); further ones are refused (`RESOURCE_EXHAUSTED`, `ssh_new_keys_limit`)")
    .byDefault("10");
  public static final Setting<Boolean> WRITE_ADMIN_TOKEN = Setting.define("CONCLAVE_WRITE_ADMIN_TOKEN", Parsers.BOOLEAN)
    .readBy(Reader.NODE)
    .describedAs("write a token of the bootstrap admin to `$CONCLAVE_DATA_DIR/admin.token` when the data dir has none (`on` or "
      + "`off`; ignored when `CONCLAVE_ADMIN_TOKEN_FILE` is set); `off`: the admin principal is still created, and its tokens are "
      + "issued with `conclave-node token --admin`")
    .byDefault("on");
  public static final Setting<Path> ADMIN_TOKEN_FILE = Setting.define("CONCLAVE_ADMIN_TOKEN_FILE", Parsers.PATH)
    .readBy(Reader.NODE)
    .describedAs("file with the bootstrap admin's credential, made once by the operator (a mounted Kubernetes Secret; at least 32 "
      + "printable characters without `.`, e.g. `openssl rand -base64 32`); it is sent as a bearer token like any admin token. Every "
      + "start makes it valid and adds nothing when it already is; a new value revokes the one it replaces; a missing, unreadable, empty "
      + "or short file, or a revoked value, stops the start. When set, no `admin.token` is written")
    .noDefault("unset");
  public static final Setting<Boolean> TLS = Setting.define("CONCLAVE_TLS", Parsers.BOOLEAN)
    .readBy(Reader.NODE, Reader.CLI)
    .describedAs("TLS on the gRPC and HTTP ports (`on` or `off`); when on, both ports speak TLS only, and a node without a usable "
      + "certificate and key refuses to start; `conclave-node session` then defaults to `https://`")
    .noDefault("`on` when `CONCLAVE_TLS_CERT_FILE` is set, else `off`");
  public static final Setting<Path> TLS_CERT_FILE = Setting.define("CONCLAVE_TLS_CERT_FILE", Parsers.PATH)
    .readBy(Reader.NODE, Reader.CLI)
    .describedAs("PEM file with the certificate (and its chain) the gRPC and HTTP ports present; a renewed file is used for new "
      + "connections within 10 s, open ones keep theirs")
    .noDefault("unset");
  public static final Setting<Path> TLS_KEY_FILE = Setting.define("CONCLAVE_TLS_KEY_FILE", Parsers.PATH)
    .readBy(Reader.NODE).describedAs("PEM file with the private key of `CONCLAVE_TLS_CERT_FILE` (PKCS#8, PKCS#1 or SEC 1)")
    .noDefault("unset");
  public static final Setting<Path> TLS_CLIENT_CA_FILE = Setting.define("CONCLAVE_TLS_CLIENT_CA_FILE", Parsers.PATH)
    .readBy(Reader.NODE)
    .describedAs("PEM file of the CA certificates that client certificates must chain to; when set, every connection to the gRPC "
      + "port must present one (the HTTP port asks for none); tokens and SSH signatures are still required on top")
    .noDefault("unset: no client certificates");
  public static final Setting<Boolean> CLUSTER_TLS = Setting.define("CONCLAVE_CLUSTER_TLS", Parsers.BOOLEAN)
    .readBy(Reader.NODE)
    .describedAs("TLS with client certificates on the clustered event bus (`on` or `off`): members accept and make only connections "
      + "whose certificate chains to `CONCLAVE_CLUSTER_TLS_CA_FILE`; when on, a clustered node without them refuses to start")
    .noDefault("`on` when `CONCLAVE_CLUSTER_TLS_CERT_FILE` is set, else `off`");
  public static final Setting<Path> CLUSTER_TLS_CERT_FILE = Setting.define("CONCLAVE_CLUSTER_TLS_CERT_FILE", Parsers.PATH)
    .readBy(Reader.NODE).describedAs("PEM file with this member's certificate on the event bus, issued by the cluster CA; it serves as "
      + "server and as client certificate")
    .noDefault("unset");
  public static final Setting<Path> CLUSTER_TLS_KEY_FILE = Setting.define("CONCLAVE_CLUSTER_TLS_KEY_FILE", Parsers.PATH)
    .readBy(Reader.NODE).describedAs("PEM file with the private key of `CONCLAVE_CLUSTER_TLS_CERT_FILE`")
    .noDefault("unset");
  public static final Setting<Path> CLUSTER_TLS_CA_FILE = Setting.define("CONCLAVE_CLUSTER_TLS_CA_FILE", Parsers.PATH)
    .readBy(Reader.NODE).describedAs("PEM file of the cluster CA: the only issuer whose certificates the event bus accepts, in both "
      + "directions; give it no other use")
    .noDefault("unset");
  /** Read by the log configuration ({@code NodeLogConfigurator}) as logback starts, before any setting is parsed. */
  public static final Setting<String> LOG_LEVEL = Setting.define("CONCLAVE_LOG_LEVEL", Parsers.TEXT)
    .readBy(Reader.NODE, Reader.CLI).describedAs("log level of Conclave's own loggers")
    .byDefault("INFO");

  /** The values {@link #LOG_FORMAT} takes: each names an appender of the node's log configuration. */
  public static final List<String> LOG_FORMATS = List.of("text", "json");
  /**
   * Read by the log configuration ({@code NodeLogConfigurator}: it names the appender that writes), and checked by the node at
   * start so that a wrong value stops it with one line instead of leaving it without logs.
   */
  public static final Setting<String> LOG_FORMAT = Setting.define("CONCLAVE_LOG_FORMAT", NodeSettings::logFormat)
    .readBy(Reader.NODE, Reader.CLI)
    .describedAs("`text` (one line per event, escaped) or `json`: one JSON object per line with `timestamp` (ms), `level`, "
      + "`loggerName`, `formattedMessage`, the node's id (`context.properties.node`) and, inside a span, `mdc.trace_id` and "
      + "`mdc.span_id` (docs/observability.md)")
    .byDefault("text");

  static Set<RoleName> roles(String variable, String text) {
    EnumSet<RoleName> roles = EnumSet.noneOf(RoleName.class);
    for (String part : text.split(",")) {
      String id = part.trim().toLowerCase(Locale.ROOT);
      if (id.isEmpty()) {
        continue;
      }
      roles.add(RoleName.of(id).orElseThrow(() ->
        new ConfigException(variable, "unknown role '" + part.trim() + "' (known: " + RoleName.known() + ")")));
    }
    if (roles.isEmpty()) {
      throw new ConfigException(variable, "names no role (known: " + RoleName.known() + ")");
    }
    return roles;
  }

  private static String name(String variable, String text) {
    if (!NAME.matcher(text).matches()) {
      throw new ConfigException(variable, "'" + text + "' is not valid: use " + NAME_RULE);
    }
    return text;
  }

  private static String authSecret(String variable, String text) {
    if (text.length() < MIN_SECRET_LENGTH) {
      throw new ConfigException(variable, "must be at least " + MIN_SECRET_LENGTH + " characters, got " + text.length());
    }
    return text;
  }

  private static String unknownKeyPolicy(String variable, String text) {
    String policy = text.trim().toLowerCase(Locale.ROOT);
    if (!UNKNOWN_KEY_POLICIES.contains(policy)) {
      throw new ConfigException(variable, "must be one of " + String.join(", ", UNKNOWN_KEY_POLICIES) + ", got '" + text + "'");
    }
    return policy;
  }

  private static String logFormat(String variable, String text) {
    if (!LOG_FORMATS.contains(text)) {
      throw new ConfigException(variable, "must be one of " + String.join(", ", LOG_FORMATS) + ", got '" + text + "'");
    }
    return text;
  }

  private static int maxEventBytes(String variable, String text) {
    int bytes = Values.positive(variable, text);
    if (bytes > MAX_EVENT_BYTES_CEILING) {
      throw new ConfigException(variable, "must be at most " + MAX_EVENT_BYTES_CEILING
        + ", so that a page of history fits in the 4 MiB gRPC clients accept, got " + bytes);
    }
    return bytes;
  }

  /**
   * This type's settings for the catalogue of every module's settings, found through ServiceLoader
   * ({@code META-INF/services/dev.conclave.settings.SettingCatalogue}): every module registers its
   * one settings type this way.
   */
  public static final class Catalogue implements SettingCatalogue {

    @Override
    public List<Setting<?>> settings() {
      return SettingCatalogue.declaredIn(NodeSettings.class);
    }
  }
}
