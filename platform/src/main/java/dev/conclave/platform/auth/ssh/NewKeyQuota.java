package dev.conclave.platform.auth.ssh;

import java.util.HashMap;
import java.util.Map;

/**
 * How many unknown SSH keys one source address may register per hour on this node
 * ({@code CONCLAVE_SSH_NEW_KEYS_PER_HOUR}); counted in fixed hours, in memory. At most
 * {@link #MAX_SOURCES} sources are counted per hour: past that, keys from further sources are
 * refused for the rest of the hour, so the count itself stays bounded too.
 */
final class NewKeyQuota {

  static final int MAX_SOURCES = 10_000;
  private static final long HOUR_MS = 3_600_000;

  private final int perHour;
  private final Map<String, Integer> taken = new HashMap<>();
  private long hourStart = Long.MIN_VALUE;

  NewKeyQuota(int perHour) {
    this.perHour = perHour;
  }

  int perHour() {
    return perHour;
  }

  /** Takes one registration for {@code source} at {@code nowMillis}; false when its hour's are spent. */
  synchronized boolean take(String source, long nowMillis) {
    if (nowMillis - hourStart >= HOUR_MS || nowMillis < hourStart) {
      taken.clear();
      hourStart = nowMillis;
    }
    Integer used = taken.get(source);
    if (used == null && taken.size() >= MAX_SOURCES) {
      return false;
    }
    int now = used == null ? 1 : used + 1;
    taken.put(source, Math.min(now, perHour + 1));
    return now <= perHour;
  }
}
