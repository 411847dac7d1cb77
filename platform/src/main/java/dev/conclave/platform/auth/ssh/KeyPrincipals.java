package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.db.PgErrors;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.validation.TextRules;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Maps an agent's SSH key to its principal (type {@code agent}, by fingerprint) and registers keys
 * nobody knows as new agent principals, pending or approved as the policy says. Pending ones are
 * capped in all ({@code CONCLAVE_SSH_PENDING_MAX}): the cap is checked and the principal inserted
 * under one advisory lock, so that no number of nodes registering at once passes it.
 */
final class KeyPrincipals {

  private static final Logger LOG = LoggerFactory.getLogger(KeyPrincipals.class);
  private static final SqlFile SQL = SqlFile.of(KeyPrincipals.class, "pending_keys.sql");
  private static final int FINGERPRINT_PREFIX = 12;

  private final PrincipalStore principals;
  private final Pool pool;
  private final int maxPending;

  KeyPrincipals(PrincipalStore principals, Pool pool, int maxPending) {
    this.principals = principals;
    this.pool = pool;
    this.maxPending = maxPending;
  }

  Future<Optional<Principal>> find(AgentKey key) {
    return principals.findByFingerprint(PrincipalType.AGENT, key.fingerprint());
  }

  /** Whether another pending principal may be made (read before anything is written for an unknown key). */
  Future<Boolean> roomForPending() {
    return SQL.get("CountPending").execute(pool).map(rows -> rows.iterator().next().getLong("pending") < maxPending);
  }

  int maxPending() {
    return maxPending;
  }

  /**
   * Creates the agent principal of an unknown key; empty when the key would be one pending principal
   * too many. Two first calls with one new key may race here; the unique index on (type, pubkey_fp)
   * lets one insert win, and the other reads what it wrote.
   */
  Future<Optional<Principal>> register(AgentKey key, PrincipalStatus status) {
    UUID id = UUID.randomUUID();
    Future<Optional<Principal>> created = status == PrincipalStatus.PENDING
      ? pool.withTransaction(conn -> SQL.get("LockPending").execute(conn)
          .compose(locked -> SQL.get("InsertPending").with("id", id).with("display_name", displayName(key))
            .with("fingerprint", key.fingerprint()).with("max", (long) maxPending).execute(conn)))
        .compose(rows -> rows.size() > 0 ? principals.find(id) : find(key))
      : principals.create(id, PrincipalType.AGENT, displayName(key), status, List.of(), Optional.of(key.fingerprint()))
        .map(Optional::of)
        .recover(err -> PgErrors.uniqueViolation(err) ? find(key) : Future.failedFuture(err));
    return created.onSuccess(p -> p.filter(made -> made.id().equals(id)).ifPresent(made ->
      LOG.info("auth: ssh key registered as a new agent principal principal={} status={} fp={} type={}",
        made.id(), made.status().wire(), key.fingerprint(), key.type())));
  }

  /**
   * The key's comment when it is a valid principal name (as an admin's would have to be:
   * {@link TextRules#nameProblem}); otherwise, or without one, a name made from the fingerprint. The
   * comment is the only text an unauthenticated caller chooses that admins read.
   */
  static String displayName(AgentKey key) {
    String comment = key.comment().orElse("").strip();
    boolean valid = !comment.isEmpty() && TextRules.nameProblem(comment, TextRules.MAX_NAME).isEmpty();
    return valid ? comment : "ssh-agent " + key.fingerprint().substring(0, FINGERPRINT_PREFIX);
  }
}
