package dev.conclave.platform.auth;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;

/**
 * Where a token may be used. A token is accepted only by the surfaces its purpose names: an
 * {@code mcp} token (the one an agent gets in Welcome) works on {@code /mcp} and nowhere else, and no
 * other token works there.
 */
public enum TokenPurpose {
  /** gRPC services and the HTTP API under {@code /api/}. */
  API("api"),
  /** The MCP endpoint, scoped to one agent's tools. */
  MCP("mcp"),
  /**
   * Dashboards: the event-bus bridge and the console's session cookie, for subscribing and reading
   * ({@code GET} under {@code /api/}), never for acting. See docs/dashboard.md.
   */
  BRIDGE("bridge");

  private final String wire;

  TokenPurpose(String wire) {
    this.wire = wire;
  }

  /** The name in the token's {@code pur} claim and in {@code auth.tokens.purpose}. */
  public String wire() {
    return wire;
  }

  /**
   * What a browser's session (the console's cookie) may be opened with, and what the event-bus bridge
   * accepts in a frame: full API tokens, or read-only dashboard tokens.
   */
  public static EnumSet<TokenPurpose> browser() {
    return EnumSet.of(API, BRIDGE);
  }

  public static Optional<TokenPurpose> of(String wire) {
    return Arrays.stream(values()).filter(p -> p.wire.equals(wire)).findFirst();
  }
}
