package dev.conclave.gateway;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.settings.ConfigException;
import dev.conclave.settings.Parsers;
import dev.conclave.settings.Setting;
import dev.conclave.settings.Setting.Reader;
import dev.conclave.settings.SettingCatalogue;
import dev.conclave.settings.Values;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;

/**
 * The gateway's own settings: each declared once below as a {@link Setting} (listed by
 * {@link Catalogue}, documented in the README's configuration table), and their values
 * for one node.
 */
public record GatewaySettings(
  Duration registerTimeout,
  Duration heartbeatTimeout,
  Duration pingInterval,
  Duration cancelGrace,
  Duration idleRedispatch,
  Duration commandTimeout,
  String mcpEndpoint,
  int registrationsInFlight,
  int registrationsQueued,
  Duration askUserTimeout) {

  public static final Setting<Duration> REGISTER_TIMEOUT = Setting.define("CONCLAVE_AGENT_REGISTER_TIMEOUT_SECONDS", Parsers.SECONDS)
    .readBy(Reader.GATEWAY).describedAs("time a new stream has to send RegisterAgent")
    .byDefault("10");
  public static final Setting<Duration> HEARTBEAT_TIMEOUT = Setting.define("CONCLAVE_AGENT_HEARTBEAT_TIMEOUT_SECONDS", Parsers.SECONDS)
    .readBy(Reader.GATEWAY).describedAs("silence after which an agent's stream is closed")
    .byDefault("90");
  public static final Setting<Duration> PING_INTERVAL = Setting.define("CONCLAVE_AGENT_PING_SECONDS", GatewaySettings::pingSeconds)
    .readBy(Reader.GATEWAY).describedAs("HTTP/2 PING interval on agent connections; `0` disables")
    .byDefault("30");
  public static final Setting<Duration> CANCEL_GRACE = Setting.define("CONCLAVE_CANCEL_GRACE_SECONDS", Parsers.SECONDS)
    .readBy(Reader.GATEWAY).describedAs("how long an agent has to confirm a cancel")
    .byDefault("30");
  /**
   * Admission at the edge: after a node is lost, its agents all register on the survivors at once; a
   * few at a time finish fast, all at once each wait behind the rest for the pool (docs/operations.md).
   */
  public static final Setting<Integer> REGISTRATIONS_IN_FLIGHT = Setting.define("CONCLAVE_AGENT_REGISTRATIONS_IN_FLIGHT", Parsers.POSITIVE)
    .readBy(Reader.GATEWAY).describedAs("agent registrations a node runs at once; the rest wait their turn in arrival order")
    .byDefault("16");
  public static final Setting<Integer> REGISTRATIONS_QUEUED = Setting.define("CONCLAVE_AGENT_REGISTRATIONS_QUEUED", Parsers.POSITIVE)
    .readBy(Reader.GATEWAY)
    .describedAs("agent registrations a node lets wait for their turn; past that it refuses them at once (`node_busy`, UNAVAILABLE) "
      + "so the agent tries another node")
    .byDefault("10000");
  /** Where agents reach MCP; set it when the pack host runs elsewhere (its own pods on Kubernetes). */
  public static final Setting<String> MCP_ENDPOINT = Setting.define("CONCLAVE_MCP_ENDPOINT", GatewaySettings::url)
    .readBy(Reader.GATEWAY)
    .describedAs("the MCP URL agents get in `Welcome.mcp_endpoint`; set it when the pack host runs on other nodes "
      + "(the Kubernetes base points it at the `conclave-pack-host` Service)")
    .noDefault("this node's `http://<public host>:<http port>/mcp` (`https://` with `CONCLAVE_TLS` on)");

  /**
   * How often an idle agent's dispatcher looks at the queue on its own. New work wakes it at once; this
   * slow poll only covers a wake-up that was lost (a node restarting, an event-bus message dropped), so
   * such work waits at most this long. Not a setting: it bounds a rare delay, it tunes nothing.
   */
  public static final Duration IDLE_REDISPATCH = Duration.ofSeconds(10);
  /**
   * How long a command to the node holding an agent's stream (wake, cancel, discard, supersede) may go
   * unanswered. That node answers from memory, so five seconds means it is gone or stuck: the caller
   * gets a clear failure instead of a hang. Not a setting: no deployment needs another value.
   */
  public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

  /** The gateway runs ask_user (gateway.tools.builtin), so it reads its bound. */
  public static final Setting<Duration> ASK_USER_TIMEOUT = Setting.define("CONCLAVE_ASK_USER_TIMEOUT_SECONDS", Parsers.SECONDS)
    .readBy(Reader.GATEWAY).describedAs("how long `ask_user` waits by default, and the most a question may ask for")
    .byDefault("300");

  public static final Setting<Duration> CONVERSATION_RETENTION = Setting.define("CONCLAVE_CONVERSATION_RETENTION_DAYS", Parsers.DAYS)
    .readBy(Reader.GATEWAY).describedAs("conversation ledger events are deleted this long after they were written, except each "
      + "conversation's latest `CONCLAVE_CONVERSATION_KEEP_EVENTS` and those of requests not finished yet")
    .byDefault("90");
  public static final Setting<Integer> CONVERSATION_KEEP_EVENTS = Setting.define("CONCLAVE_CONVERSATION_KEEP_EVENTS", Parsers.between(0, 1_000_000))
    .readBy(Reader.GATEWAY).describedAs("the latest events of each conversation that retention never deletes, however old")
    .byDefault("50");
  public static final Setting<Duration> REQUEST_RETENTION = Setting.define("CONCLAVE_REQUEST_RETENTION_DAYS", Parsers.DAYS)
    .readBy(Reader.GATEWAY).describedAs("finished requests (done, error, cancelled) are deleted this long after they finished, once no "
      + "kept event names them; a queued or dispatched request never is")
    .byDefault("90");

  public static GatewaySettings from(ConclaveConfig config) {
    return new GatewaySettings(
      config.get(REGISTER_TIMEOUT),
      config.get(HEARTBEAT_TIMEOUT),
      config.get(PING_INTERVAL),
      config.get(CANCEL_GRACE),
      IDLE_REDISPATCH,
      COMMAND_TIMEOUT,
      config.find(MCP_ENDPOINT).orElse(config.httpScheme() + "://" + config.advertisedHost() + ":" + config.httpPort() + "/mcp"),
      config.get(REGISTRATIONS_IN_FLIGHT),
      config.get(REGISTRATIONS_QUEUED),
      config.get(ASK_USER_TIMEOUT));
  }

  private static Duration pingSeconds(String variable, String text) {
    int seconds = Values.integer(variable, text);
    if (seconds < 0) {
      throw new ConfigException(variable, "must be 0 (off) or a positive whole number, got '" + text + "'");
    }
    return Duration.ofSeconds(seconds);
  }

  private static String url(String variable, String value) {
    try {
      URI uri = new URI(value);
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
        return value;
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    throw new ConfigException(variable, "must be an http(s) URL such as http://packs:8080/mcp, got '" + value + "'");
  }

  /**
   * This type's settings for the catalogue of every module's settings, found through ServiceLoader
   * ({@code META-INF/services/dev.conclave.settings.SettingCatalogue}): every module registers its
   * one settings type this way.
   */
  public static final class Catalogue implements SettingCatalogue {

    @Override
    public List<Setting<?>> settings() {
      return SettingCatalogue.declaredIn(GatewaySettings.class);
    }
  }
}
