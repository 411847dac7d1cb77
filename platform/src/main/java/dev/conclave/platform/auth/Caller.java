package dev.conclave.platform.auth;

import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Who made a call. Usually proven by a verified, unrevoked, unexpired bearer token ({@code tokenId}
 * set); a service may also accept its own credentials (for example the coordinator's HMAC-signed
 * requests), in which case {@code tokenId} is empty and the service vouches for the principal.
 * {@code agentScope} is set for tokens issued to one agent (MCP tokens).
 */
public record Caller(UUID principalId, PrincipalType type, Set<String> roles, Optional<UUID> tokenId, Instant expiresAt,
                     TokenPurpose purpose, Optional<AgentScope> agentScope) {

  public Caller {
    roles = Set.copyOf(roles);
  }

  /** A caller vouched for by an API credential without agent scope. */
  public Caller(UUID principalId, PrincipalType type, Set<String> roles, Optional<UUID> tokenId, Instant expiresAt) {
    this(principalId, type, roles, tokenId, expiresAt, TokenPurpose.API, Optional.empty());
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
