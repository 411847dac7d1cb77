package dev.conclave.platform.auth;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** PostgreSQL repository of principals (schema {@code auth}). */
public final class PrincipalStore {

  private static final SqlFile SQL = SqlFile.of(PrincipalStore.class, "principals.sql");

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
    return SQL.get("Create").with("id", id).with("type", type.wire()).with("display_name", displayName).with("status", status.wire())
      .with("roles", roles.toArray(new String[0])).with("pubkey_fp", pubkeyFingerprint.orElse(null)).with("owner_id", owner.orElse(null))
      .execute(pool)
      .compose(r -> find(id))
      .map(Optional::orElseThrow);
  }

  /** A principal that has not been deleted. */
  public Future<Optional<Principal>> find(UUID id) {
    return SQL.get("Find").with("id", id).execute(pool)
      .map(PrincipalStore::first);
  }

  public Future<Optional<Principal>> findByFingerprint(PrincipalType type, String fingerprint) {
    return SQL.get("FindByFingerprint").with("type", type.wire()).with("pubkey_fp", fingerprint).execute(pool)
      .map(PrincipalStore::first);
  }

  public Future<List<Principal>> list(Optional<PrincipalType> type, Optional<PrincipalStatus> status) {
    return SQL.get("List").with("type", type.map(PrincipalType::wire).orElse(null))
      .with("status", status.map(PrincipalStatus::wire).orElse(null)).execute(pool)
      .map(PrincipalStore::all);
  }

  public Future<Boolean> setStatus(UUID id, PrincipalStatus status) {
    return SQL.get("SetStatus").with("id", id).with("status", status.wire()).execute(pool)
      .map(r -> r.rowCount() > 0);
  }

  /** Marks the principal deleted and revoked; returns false when there was none. */
  public Future<Boolean> delete(UUID id) {
    return SQL.get("Delete").with("id", id).execute(pool)
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
