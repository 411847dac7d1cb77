package dev.conclave.platform.auth;

import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * What a verified token's claims say, and no more than is needed to find its record: whose it is
 * ({@code sub}), its id ({@code jti}), its purpose ({@code pur}), when it is valid ({@code nbf},
 * {@code exp}) and, for an MCP token, its agent ({@code agt}). Roles, type and capabilities are never
 * read from claims: they come from PostgreSQL (the principal's row, the session's entry).
 */
record Claims(UUID subject, UUID tokenId, TokenPurpose purpose, Instant expiresAt, Optional<Instant> notBefore,
              Optional<String> agentId) {

  /** Reads the claims of a token whose signature verified; {@code token_invalid} when one is missing or malformed. */
  static Claims of(JsonObject claims) {
    try {
      // tokens issued before purposes existed carry none: they were API tokens
      TokenPurpose purpose = TokenPurpose.of(claims.getString("pur", TokenPurpose.API.wire())).orElseThrow();
      Object nbf = claims.getValue("nbf");
      Optional<Instant> notBefore = nbf == null ? Optional.empty() : Optional.of(Instant.ofEpochSecond(((Number) nbf).longValue()));
      return new Claims(
        UUID.fromString(claims.getString("sub")),
        UUID.fromString(claims.getString("jti")),
        purpose,
        Instant.ofEpochSecond(claims.getLong("exp")),
        notBefore,
        Optional.ofNullable(claims.getString("agt")));
    } catch (RuntimeException e) {
      throw AuthErrors.invalidToken();
    }
  }
}
