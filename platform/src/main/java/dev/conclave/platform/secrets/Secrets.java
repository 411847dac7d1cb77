package dev.conclave.platform.secrets;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The secrets service: admins set, delete and list secrets (global, or for one agent id), and an
 * agent's session resolves the values it gets in {@code Welcome.secrets}. Values are encrypted
 * before they reach the database and decrypted only for that delivery; no message, log line or
 * error built here ever contains one.
 */
public final class Secrets {

  private static final Logger LOG = LoggerFactory.getLogger(Secrets.class);

  public static final int MAX_VALUE_BYTES = 64 * 1024;
  /** Per scope (the globals, and each agent's own), so a Welcome stays far below gRPC's 4 MiB. */
  public static final int MAX_PER_SCOPE = 1000;
  public static final int MAX_BYTES_PER_SCOPE = 1024 * 1024;

  private final SecretStore store;
  private final SecretBox box;

  public Secrets(SecretStore store, SecretBox box) {
    this.store = store;
    this.box = box;
  }

  /** Checks the key against the database (see {@link SecretsKey#verify}) and returns the service. */
  public static Future<Secrets> start(Pool pool, SecretsKey.Resolved key) {
    SecretStore store = new SecretStore(pool);
    SecretBox box = new SecretBox(key.key());
    return SecretsKey.verify(store, box, key).map(v -> new Secrets(store, box));
  }

  /** Sets (creates or replaces) a secret; {@code by} is the admin's principal id. */
  public Future<SecretInfo> set(SecretRef ref, String value, UUID by) {
    byte[] plaintext;
    try {
      plaintext = checkedValue(value);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    SecretBox.Sealed sealed = box.seal(plaintext, ref.associatedData());
    Arrays.fill(plaintext, (byte) 0);
    return store.upsert(ref, sealed, by, MAX_PER_SCOPE, MAX_BYTES_PER_SCOPE).onSuccess(info ->
      LOG.info("secrets: set {} by={}", logged(ref), by));
  }

  /** Deletes a secret; fails with {@code secret_not_found} when there was none. */
  public Future<Void> delete(SecretRef ref, UUID by) {
    return store.delete(ref).compose(deleted -> {
      if (!deleted) {
        return Future.failedFuture(SecretErrors.notFound(ref));
      }
      LOG.info("secrets: deleted {} by={}", logged(ref), by);
      return Future.succeededFuture();
    });
  }

  /** Every secret's name, scope, agent and last change; never a value. */
  public Future<List<SecretInfo>> list() {
    return store.list();
  }

  /**
   * The environment for {@code agentId}: every global secret, overridden by the agent's own of the
   * same name. A value that does not decrypt fails the whole resolution (naming it, never its
   * content): an agent silently missing a secret would fail later and less clearly.
   */
  public Future<Map<String, String>> resolveFor(String agentId) {
    return store.sealedFor(agentId).map(rows -> {
      Map<String, String> values = new TreeMap<>();
      rows.stream().sorted(Comparator.comparing((SecretStore.SealedSecret r) -> r.ref().scope())).forEach(row -> {
        byte[] plaintext = box.open(row.sealed(), row.ref().associatedData()).orElseThrow(() -> {
          // the key was checked at start, so this row was changed in the database (or copied from another name)
          LOG.error("secrets: a stored value does not decrypt; the agent is not welcomed {} registering={}", logged(row.ref()), agentId);
          return SecretErrors.unreadable(row.ref());
        });
        values.put(row.ref().name(), new String(plaintext, StandardCharsets.UTF_8));
        Arrays.fill(plaintext, (byte) 0);
      });
      return values;
    });
  }

  /** Which secret, as log key/value pairs; its name, never its value. */
  private static String logged(SecretRef ref) {
    return ref.scope() == SecretScope.GLOBAL ? "scope=global name=" + ref.name()
      : "scope=agent agent=" + ref.agentId() + " name=" + ref.name();
  }

  /** The value's UTF-8 bytes, if it is one an agent's environment can hold. */
  private static byte[] checkedValue(String value) {
    if (value == null) {
      throw SecretErrors.valueMissing();
    }
    if (value.indexOf('\0') >= 0) {
      throw SecretErrors.valueInvalid("must not contain NUL characters (environment values cannot)");
    }
    ByteBuffer encoded;
    try {
      // strict: a lone surrogate would otherwise be stored as '?', not as what was sent
      encoded = StandardCharsets.UTF_8.newEncoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT).encode(CharBuffer.wrap(value));
    } catch (CharacterCodingException e) {
      throw SecretErrors.valueInvalid("is not valid Unicode text (it contains an unpaired surrogate)");
    }
    if (encoded.remaining() > MAX_VALUE_BYTES) {
      throw SecretErrors.valueTooLarge(encoded.remaining());
    }
    byte[] bytes = new byte[encoded.remaining()];
    encoded.get(bytes);
    return bytes;
  }
}
