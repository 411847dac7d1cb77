package dev.conclave.platform.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The services a node can run. */
public enum RoleName {
  GATEWAY("gateway"),
  COORDINATOR("coordinator"),
  PACK_HOST("pack-host");

  private final String id;

  RoleName(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  public static Optional<RoleName> of(String id) {
    return Arrays.stream(values()).filter(r -> r.id.equals(id)).findFirst();
  }

  public static String known() {
    return Arrays.stream(values()).map(RoleName::id).collect(Collectors.joining(", "));
  }

  @Override
  public String toString() {
    return id;
  }
}
