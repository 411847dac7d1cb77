package dev.conclave.gateway;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.Values;

import java.time.Duration;

/** The gateway's own settings, each read from one environment variable (documented in README). */
public record GatewaySettings(
  Duration registerTimeout,
  Duration heartbeatTimeout,
  Duration pingInterval,
  Duration cancelGrace,
  Duration idleRedispatch,
  Duration commandTimeout,
  String mcpEndpoint) {

  public static final String REGISTER_TIMEOUT = "CONCLAVE_AGENT_REGISTER_TIMEOUT_SECONDS";
  public static final String HEARTBEAT_TIMEOUT = "CONCLAVE_AGENT_HEARTBEAT_TIMEOUT_SECONDS";
  public static final String PING_INTERVAL = "CONCLAVE_AGENT_PING_SECONDS";
  public static final String CANCEL_GRACE = "CONCLAVE_CANCEL_GRACE_SECONDS";
  /** Where agents reach MCP; set it when the pack host runs elsewhere (its own pods on Kubernetes). */
  public static final String MCP_ENDPOINT = "CONCLAVE_MCP_ENDPOINT";

  public static GatewaySettings from(ConclaveConfig config) {
    return new GatewaySettings(
      seconds(config, REGISTER_TIMEOUT, 10),
      seconds(config, HEARTBEAT_TIMEOUT, 90),
      config.raw(PING_INTERVAL).map(v -> Duration.ofSeconds(Values.integer(PING_INTERVAL, v))).orElse(Duration.ofSeconds(30)),
      seconds(config, CANCEL_GRACE, 30),
      Duration.ofSeconds(10),
      Duration.ofSeconds(5),
      config.raw(MCP_ENDPOINT).map(GatewaySettings::url)
        .orElse("http://" + config.advertisedHost() + ":" + config.httpPort() + "/mcp"));
  }

  private static String url(String value) {
    try {
      java.net.URI uri = new java.net.URI(value);
      if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
        return value;
      }
    } catch (java.net.URISyntaxException e) {
      // reported below
    }
    throw new dev.conclave.platform.config.ConfigException(MCP_ENDPOINT, "must be an http(s) URL such as http://packs:8080/mcp, got '" + value + "'");
  }

  private static Duration seconds(ConclaveConfig config, String variable, int fallback) {
    return Duration.ofSeconds(config.raw(variable).map(v -> Values.positive(variable, v)).orElse(fallback));
  }
}
