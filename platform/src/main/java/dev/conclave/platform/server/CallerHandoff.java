package dev.conclave.platform.server;

import dev.conclave.platform.auth.Caller;
import io.vertx.core.MultiMap;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Carries the caller the gRPC gate verified to the service that handles the call, so that
 * credentials are checked once (an SSH signature's nonce can only be used once). The gate stores the
 * caller under a random key and puts the key in a request header it owns; a client-sent value of
 * that header is always removed first, and a key is good for one take.
 */
public final class CallerHandoff {

  static final String HEADER = "x-conclave-verified-caller";
  private static final SecureRandom RANDOM = new SecureRandom();

  /** A call that never reaches a service (unknown method, reset at once) leaves its entry; such entries expire. */
  static final long EXPIRE_NANOS = 60_000_000_000L;
  static final int PRUNE_ABOVE = 1024;

  private record Entry(Caller caller, long at) {
  }

  private final Map<String, Entry> pending = new ConcurrentHashMap<>();

  /** Removes whatever the client sent in our header. */
  public static void strip(MultiMap headers) {
    headers.remove(HEADER);
  }

  void put(MultiMap headers, Caller caller) {
    byte[] key = new byte[18];
    RANDOM.nextBytes(key);
    String k = Base64.getUrlEncoder().withoutPadding().encodeToString(key);
    long now = System.nanoTime();
    if (pending.size() > PRUNE_ABOVE) {
      pending.values().removeIf(e -> now - e.at() > EXPIRE_NANOS);
    }
    pending.put(k, new Entry(caller, now));
    headers.set(HEADER, k);
  }

  /** The verified caller of the call with these headers, once. */
  Optional<Caller> take(MultiMap headers) {
    String key = headers.get(HEADER);
    return key == null ? Optional.empty() : Optional.ofNullable(pending.remove(key)).map(Entry::caller);
  }
}
