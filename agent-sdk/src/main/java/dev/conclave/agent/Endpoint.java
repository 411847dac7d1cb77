package dev.conclave.agent;

import java.util.Objects;

/** One gateway gRPC address. The SDK rotates across a list of them when it (re)connects. */
public record Endpoint(String host, int port) {

  public Endpoint {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("endpoint host is blank");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("endpoint port out of range: " + port);
    }
  }

  /**
   * Parses {@code host:port}; IPv6 literals are written in brackets ({@code [::1]:50051}).
   *
   * @throws IllegalArgumentException naming the malformed value
   */
  public static Endpoint parse(String value) {
    Objects.requireNonNull(value, "endpoint");
    String v = value.trim();
    int colon = v.lastIndexOf(':');
    if (colon <= 0 || colon == v.length() - 1) {
      throw new IllegalArgumentException("endpoint must be host:port, got '" + value + "'");
    }
    String host = v.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(v.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("endpoint port is not a number in '" + value + "'");
    }
    return new Endpoint(host, port);
  }

  @Override
  public String toString() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }
}
