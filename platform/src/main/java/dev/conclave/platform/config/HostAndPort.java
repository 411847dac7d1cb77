package dev.conclave.platform.config;

import dev.conclave.settings.ConfigException;
import dev.conclave.settings.Values;

/** A {@code host:port} pair such as a Hazelcast member. */
public record HostAndPort(String host, int port) {

  static HostAndPort parse(String variable, String text, int defaultPort) {
    String value = text.trim();
    if (value.isEmpty()) {
      throw new ConfigException(variable, "empty member in list");
    }
    int colon = value.lastIndexOf(':');
    if (colon < 0) {
      return new HostAndPort(value, defaultPort);
    }
    String host = value.substring(0, colon);
    if (host.isEmpty()) {
      throw new ConfigException(variable, "member '" + value + "' has no host");
    }
    return new HostAndPort(host, Values.port(variable, value.substring(colon + 1), false));
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
