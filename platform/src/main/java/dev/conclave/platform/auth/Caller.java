package dev.conclave.platform.auth;

import java.time.Instant;
import java.util.Set;
import java.util.UUID;

/** Who made a call, as proven by a verified, unrevoked, unexpired token. */
public record Caller(UUID principalId, PrincipalType type, Set<String> roles, UUID tokenId, Instant expiresAt) {

  public Caller {
    roles = Set.copyOf(roles);
  }

  public boolean isAdmin() {
    return roles.contains(Roles.ADMIN) || roles.contains(Roles.OWNER);
  }

  public void requireAdmin() {
    if (!isAdmin()) {
      throw AuthErrors.adminRequired();
    }
  }
}
