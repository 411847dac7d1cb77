package dev.conclave.platform.auth;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** PostgreSQL record of issued tokens and their revocation (schema {@code auth}). */
public final class TokenStore {

  /** A revoked token and when it was revoked. */
  public record Revocation(UUID tokenId, Instant revokedAt) {
  }

  private static final SqlFile SQL = SqlFile.of(TokenStore.class, "tokens.sql");

  /** An issued token's record: whose it is, what for, until when. */
  public record Issued(UUID tokenId, UUID principalId, TokenPurpose purpose, Instant expiresAt) {
  }

  /** A token's record as verification needs it, with its principal. */
  public record IssuedWithPrincipal(Issued issued, boolean revoked, Principal principal) {
  }

  private final Pool pool;

  public TokenStore(Pool pool) {
    this.pool = pool;
  }

  /** The record of token {@code tokenId} and its principal; empty when no such token was issued. */
  public Future<Optional<IssuedWithPrincipal>> findIssued(UUID tokenId) {
    return SQL.get("FindIssued").with("token_id", tokenId).execute(pool).map(rows -> {
      var it = rows.iterator();
      if (!it.hasNext()) {
        return Optional.empty();
      }
      Row r = it.next();
      Optional<TokenPurpose> purpose = TokenPurpose.of(r.getString("purpose"));
      if (purpose.isEmpty()) {
        return Optional.empty();
      }
      Issued issued = new Issued(r.getUUID("token_id"), r.getUUID("principal_id"), purpose.get(),
        r.getOffsetDateTime("expires_at").toInstant());
      return Optional.of(new IssuedWithPrincipal(issued, r.getBoolean("revoked"), PrincipalStore.map(r)));
    });
  }

  /** The principals with these ids, deleted ones included (their status is {@code revoked}). */
  public Future<List<Principal>> principals(List<UUID> ids) {
    return SQL.get("PrincipalsByIds").with("ids", ids.toArray(new UUID[0])).execute(pool).map(rows -> {
      List<Principal> out = new ArrayList<>(rows.size());
      rows.forEach(r -> out.add(PrincipalStore.map(r)));
      return out;
    });
  }

  public Future<Void> record(UUID tokenId, UUID principalId, String purpose, Instant issuedAt, Instant expiresAt) {
    return SQL.get("Record").with("id", tokenId).with("principal_id", principalId).with("purpose", purpose)
      .with("issued_at", utc(issuedAt)).with("expires_at", utc(expiresAt)).execute(pool)
      .mapEmpty();
  }

  /** A principal's tokens as listed to people: never the token itself. */
  public record TokenInfo(UUID tokenId, UUID principalId, String purpose, Instant issuedAt, Instant expiresAt, Optional<Instant> revokedAt,
                          Optional<Instant> lastUsedAt) {
  }

  public Future<List<TokenInfo>> listOf(UUID principalId) {
    return SQL.get("ListOf").with("principal_id", principalId).execute(pool)
      .map(rows -> {
        List<TokenInfo> out = new ArrayList<>();
        for (Row r : rows) {
          out.add(info(r));
        }
        return out;
      });
  }

  public Future<Optional<TokenInfo>> find(UUID tokenId) {
    return SQL.get("Find").with("id", tokenId).execute(pool)
      .map(rows -> {
        var it = rows.iterator();
        return it.hasNext() ? Optional.of(info(it.next())) : Optional.empty();
      });
  }

  private static TokenInfo info(Row r) {
    return new TokenInfo(r.getUUID("id"), r.getUUID("principal_id"), r.getString("purpose"), r.getOffsetDateTime("issued_at").toInstant(),
      r.getOffsetDateTime("expires_at").toInstant(), Optional.ofNullable(r.getOffsetDateTime("revoked_at")).map(OffsetDateTime::toInstant),
      Optional.ofNullable(r.getOffsetDateTime("last_used_at")).map(OffsetDateTime::toInstant));
  }

  /** Revokes one token; true when it existed and was not already revoked. */
  public Future<Boolean> revoke(UUID tokenId, String reason) {
    return SQL.get("Revoke").with("id", tokenId).with("reason", reason).execute(pool)
      .map(r -> r.rowCount() > 0);
  }

  /** Revokes every live token of a principal; returns their ids. */
  public Future<List<UUID>> revokeAllOf(UUID principalId, String reason) {
    return SQL.get("RevokeAllOf").with("principal_id", principalId).with("reason", reason).execute(pool)
      .map(rows -> {
        List<UUID> ids = new ArrayList<>();
        rows.forEach(row -> ids.add(row.getUUID("id")));
        return ids;
      });
  }

  /** Tokens revoked after {@code since} that have not yet expired anyway. */
  public Future<List<Revocation>> revokedSince(Instant since) {
    return SQL.get("RevokedSince").with("since", utc(since)).execute(pool)
      .map(rows -> {
        List<Revocation> out = new ArrayList<>();
        for (Row row : rows) {
          out.add(new Revocation(row.getUUID("id"), row.getOffsetDateTime("revoked_at").toInstant()));
        }
        return out;
      });
  }

  private static OffsetDateTime utc(Instant instant) {
    return instant.atOffset(ZoneOffset.UTC);
  }
}
