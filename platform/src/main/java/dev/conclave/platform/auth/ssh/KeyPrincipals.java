package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.db.PgErrors;
import dev.conclave.platform.validation.TextRules;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Maps an agent's SSH key to its principal (type {@code agent}, by fingerprint) and registers keys
 * nobody knows as new agent principals, pending or approved as the policy says.
 */
final class KeyPrincipals {

  private static final Logger LOG = LoggerFactory.getLogger(KeyPrincipals.class);
  private static final int MAX_DISPLAY_NAME = 200;
  private static final int FINGERPRINT_PREFIX = 12;

  private final PrincipalStore principals;

  KeyPrincipals(PrincipalStore principals) {
    this.principals = principals;
  }

  Future<Optional<Principal>> find(AgentKey key) {
    return principals.findByFingerprint(PrincipalType.AGENT, key.fingerprint());
  }

  /**
   * Creates the agent principal of an unknown key. Two first calls with one new key may race here;
   * the unique index on (type, pubkey_fp) lets one insert win, and the other reads what it wrote.
   */
  Future<Principal> register(AgentKey key, PrincipalStatus status) {
    UUID id = UUID.randomUUID();
    return principals.create(id, PrincipalType.AGENT, displayName(key), status, List.of(), Optional.of(key.fingerprint()))
      .onSuccess(p -> LOG.info("auth: ssh key registered as a new agent principal principal={} status={} fp={} type={}",
        p.id(), p.status().wire(), key.fingerprint(), key.type()))
      .recover(err -> PgErrors.uniqueViolation(err)
        ? find(key).map(found -> found.orElseThrow(() -> new IllegalStateException("agent principal of key " + key.fingerprint()
          + " conflicted on insert but cannot be read", err)))
        : Future.failedFuture(err));
  }

  /** The key's comment, cleaned to fit, or a name made from the fingerprint. */
  static String displayName(AgentKey key) {
    String comment = TextRules.visible(key.comment().orElse("")).strip().codePoints()
      .limit(MAX_DISPLAY_NAME)
      .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
      .toString().strip();
    return comment.isEmpty() ? "ssh-agent " + key.fingerprint().substring(0, FINGERPRINT_PREFIX) : comment;
  }
}
