package dev.conclave.platform.secrets;

/** Whom a secret is for: every agent, or one agent id (which overrides a global of the same name). */
public enum SecretScope {
  GLOBAL("global"),
  AGENT("agent");

  private final String wire;

  SecretScope(String wire) {
    this.wire = wire;
  }

  /** The name in the database and in JSON. */
  public String wire() {
    return wire;
  }

  public static SecretScope of(String wire) {
    for (SecretScope scope : values()) {
      if (scope.wire.equals(wire)) {
        return scope;
      }
    }
    throw new IllegalArgumentException("unknown secret scope '" + wire + "'");
  }
}
