package dev.conclave.platform.auth;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** PostgreSQL repository of principals (schema {@code auth}). */
public final class PrincipalStore {

  private static final String COLUMNS = "id, type, display_name, status, roles, pubkey_fp, created_at, owner_id";

  private final Pool pool;
  private final CapabilityGrants capabilities;

  public PrincipalStore(Pool pool) {
    this.pool = pool;
    this.capabilities = new CapabilityGrants(pool);
  }

  /** The capabilities admins granted to principals. */
  public CapabilityGrants capabilities() {
    return capabilities;
  }

  /** Creates a principal; idempotent for a given id (a repeat returns the stored one). */
  public Future<Principal> create(UUID id, PrincipalType type, String displayName, PrincipalStatus status,
                                  List<String> roles, Optional<String> pubkeyFingerprint) {
    return create(id, type, displayName, status, roles, pubkeyFingerprint, Optional.empty());
  }

  /** As above, owned by {@code owner} (the member responsible for an agent principal). */
  public Future<Principal> create(UUID id, PrincipalType type, String displayName, PrincipalStatus status,
                                  List<String> roles, Optional<String> pubkeyFingerprint, Optional<UUID> owner) {
    return pool.preparedQuery("INSERT INTO auth.principals (id, type, display_name, status, roles, pubkey_fp, owner_id) "
        + "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING")
      .execute(Tuple.of(id, type.wire(), displayName, status.wire(), roles.toArray(new String[0]), pubkeyFingerprint.orElse(null),
        owner.orElse(null)))
      .compose(r -> find(id))
      .map(Optional::orElseThrow);
  }

  /** A principal that has not been deleted. */
  public Future<Optional<Principal>> find(UUID id) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM auth.principals WHERE id = $1 AND deleted_at IS NULL")
      .execute(Tuple.of(id))
      .map(PrincipalStore::first);
  }

  public Future<Optional<Principal>> findByFingerprint(PrincipalType type, String fingerprint) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM auth.principals WHERE type = $1 AND pubkey_fp = $2 AND deleted_at IS NULL")
      .execute(Tuple.of(type.wire(), fingerprint))
      .map(PrincipalStore::first);
  }

  public Future<List<Principal>> list(Optional<PrincipalType> type, Optional<PrincipalStatus> status) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM auth.principals WHERE deleted_at IS NULL "
        + "AND ($1::text IS NULL OR type = $1) AND ($2::text IS NULL OR status = $2) ORDER BY created_at, id")
      .execute(Tuple.of(type.map(PrincipalType::wire).orElse(null), status.map(PrincipalStatus::wire).orElse(null)))
      .map(PrincipalStore::all);
  }

  public Future<Boolean> setStatus(UUID id, PrincipalStatus status) {
    return pool.preparedQuery("UPDATE auth.principals SET status = $2, updated_at = now() WHERE id = $1 AND deleted_at IS NULL")
      .execute(Tuple.of(id, status.wire()))
      .map(r -> r.rowCount() > 0);
  }

  /** Marks the principal deleted and revoked; returns false when there was none. */
  public Future<Boolean> delete(UUID id) {
    return pool.preparedQuery("UPDATE auth.principals SET status = 'revoked', deleted_at = now(), updated_at = now() "
        + "WHERE id = $1 AND deleted_at IS NULL")
      .execute(Tuple.of(id))
      .map(r -> r.rowCount() > 0);
  }

  private static Optional<Principal> first(RowSet<Row> rows) {
    var it = rows.iterator();
    return it.hasNext() ? Optional.of(map(it.next())) : Optional.empty();
  }

  private static List<Principal> all(RowSet<Row> rows) {
    List<Principal> out = new ArrayList<>(rows.size());
    rows.forEach(row -> out.add(map(row)));
    return out;
  }

  static Principal map(Row row) {
    OffsetDateTime created = row.getOffsetDateTime("created_at");
    return new Principal(
      row.getUUID("id"),
      PrincipalType.of(row.getString("type")).orElseThrow(),
      row.getString("display_name"),
      PrincipalStatus.of(row.getString("status")).orElseThrow(),
      Arrays.asList(row.getArrayOfStrings("roles")),
      Optional.ofNullable(row.getString("pubkey_fp")),
      created.toInstant(),
      Optional.ofNullable(row.getUUID("owner_id")));
  }
}
