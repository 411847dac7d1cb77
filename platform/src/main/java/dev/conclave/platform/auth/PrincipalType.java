package dev.conclave.platform.auth;

import java.util.Arrays;
import java.util.Optional;

/** What kind of party a principal is. */
public enum PrincipalType {
  CLIENT("client"),
  AGENT("agent"),
  PACK("pack");

  private final String wire;

  PrincipalType(String wire) {
    this.wire = wire;
  }

  /** The name used in the database, in tokens and on the wire. */
  public String wire() {
    return wire;
  }

  public static Optional<PrincipalType> of(String wire) {
    return Arrays.stream(values()).filter(t -> t.wire.equals(wire)).findFirst();
  }
}
