package dev.conclave.swarm.store;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** What verifying an HMAC-signed request needs from PostgreSQL (swarm.signature_check), in one round trip. */
public final class SignatureStore {

  /**
   * The agent's secret salt and owner, whether the signature had not been seen before, and whether
   * the owner principal is still approved (a deleted or revoked principal's agents sign in vain).
   */
  public record SignerRecord(String secretSalt, UUID owner, boolean fresh, boolean ownerActive) {
  }

  private final Pool pool;

  public SignatureStore(Pool pool) {
    this.pool = pool;
  }

  /** Empty when the agent does not exist. Records the signature until {@code forgetAfter}. */
  public Future<Optional<SignerRecord>> check(String agentId, String signature, Instant forgetAfter) {
    return pool.preparedQuery("SELECT s.secret_salt, s.owner_principal, s.fresh,"
        + " coalesce(p.status = 'approved' AND p.deleted_at IS NULL, false) AS owner_active"
        + " FROM swarm.signature_check($1, $2, $3) s LEFT JOIN auth.principals p ON p.id = s.owner_principal")
      .execute(Tuple.of(agentId, signature, SqlTime.of(forgetAfter)))
      .map(rows -> {
        var it = rows.iterator();
        if (!it.hasNext()) {
          return Optional.empty();
        }
        Row row = it.next();
        return Optional.of(new SignerRecord(row.getString("secret_salt"), row.getUUID("owner_principal"), row.getBoolean("fresh"),
          row.getBoolean("owner_active")));
      });
  }
}
