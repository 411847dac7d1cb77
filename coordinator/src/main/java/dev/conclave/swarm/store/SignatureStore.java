package dev.conclave.swarm.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * What verifying an HMAC-signed request needs from PostgreSQL: the signer (read only), then, once
 * the signature matched, remembering it against replay (swarm.signature_record). Nothing is
 * written for a signature that did not verify.
 */
public final class SignatureStore {

  /** The agent's secret salt (null: it has no secret) and the principal that owns it. */
  public record Signer(String secretSalt, UUID owner) {
  }

  /**
   * Whether the verified signature had not been seen before, whether the agent's owner is still
   * approved, and the agent's secret salt now (to catch a salt cached before a rotation).
   */
  public record Recorded(boolean fresh, boolean ownerActive, String secretSalt) {
  }

  private final Pool pool;

  public SignatureStore(Pool pool) {
    this.pool = pool;
  }

  /** Empty when the agent does not exist. Writes nothing. */
  public Future<Optional<Signer>> signer(String agentId) {
    return pool.preparedQuery("SELECT secret_salt, owner_principal FROM swarm.agents WHERE id = $1")
      .execute(Tuple.of(agentId))
      .map(rows -> {
        var it = rows.iterator();
        if (!it.hasNext()) {
          return Optional.empty();
        }
        Row row = it.next();
        return Optional.of(new Signer(row.getString("secret_salt"), row.getUUID("owner_principal")));
      });
  }

  /** Remembers a verified signature until {@code forgetAfter}; empty when the agent no longer exists. */
  public Future<Optional<Recorded>> record(String agentId, String signature, Instant forgetAfter) {
    return pool.preparedQuery("SELECT fresh, owner_active, secret_salt FROM swarm.signature_record($1, $2, $3)")
      .execute(Tuple.of(agentId, signature, SqlTime.of(forgetAfter)))
      .map(rows -> {
        var it = rows.iterator();
        if (!it.hasNext()) {
          return Optional.empty();
        }
        Row row = it.next();
        return Optional.of(new Recorded(row.getBoolean("fresh"), row.getBoolean("owner_active"), row.getString("secret_salt")));
      });
  }
}
