package dev.conclave.platform.auth;

import java.util.Arrays;
import java.util.Optional;

/** Whether a principal may act. Online and offline are presence, not status, and live elsewhere. */
public enum PrincipalStatus {
  PENDING("pending"),
  APPROVED("approved"),
  REVOKED("revoked");

  private final String wire;

  PrincipalStatus(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static Optional<PrincipalStatus> of(String wire) {
    return Arrays.stream(values()).filter(s -> s.wire.equals(wire)).findFirst();
  }
}
