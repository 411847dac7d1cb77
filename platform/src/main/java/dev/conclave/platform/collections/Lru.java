package dev.conclave.platform.collections;

import java.util.LinkedHashMap;
import java.util.Map;

/** Bounded maps that drop their least recently used entry when full. Not thread-safe: callers guard them. */
public final class Lru {

  private Lru() {
  }

  /** A map of at most {@code max} entries; a read counts as a use. */
  public static <K, V> Map<K, V> map(int max) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > max;
      }
    };
  }
}
