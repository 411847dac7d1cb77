package dev.conclave.platform.auth;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** An identity that can authenticate. */
public record Principal(
  UUID id,
  PrincipalType type,
  String displayName,
  PrincipalStatus status,
  List<String> roles,
  Optional<String> pubkeyFingerprint,
  Instant createdAt,
  Optional<UUID> ownerId) {

  public Principal {
    roles = List.copyOf(roles);
  }

  /** A principal without an owner. */
  public Principal(UUID id, PrincipalType type, String displayName, PrincipalStatus status, List<String> roles,
                   Optional<String> pubkeyFingerprint, Instant createdAt) {
    this(id, type, displayName, status, roles, pubkeyFingerprint, createdAt, Optional.empty());
  }

  public boolean approved() {
    return status == PrincipalStatus.APPROVED;
  }
}
