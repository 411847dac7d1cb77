package dev.conclave.e2e.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One named property a checker tests, filled in as the checker goes: counts of what it looked at,
 * every violation counted and the first five kept as examples. It passes when there is no
 * violation.
 */
public final class Invariant {

  static final int EXAMPLES = 5;

  private final String name;
  private final Map<String, Long> counts = new LinkedHashMap<>();
  private final List<String> examples = new ArrayList<>();
  private long violations;

  public Invariant(String name) {
    this.name = name;
  }

  /** Adds one to {@code key}. */
  public Invariant count(String key) {
    return count(key, 1);
  }

  public Invariant count(String key, long n) {
    counts.merge(key, n, Long::sum);
    return this;
  }

  /** Records a violation; the first five are kept as examples. */
  public Invariant violation(String example) {
    violations++;
    if (examples.size() < EXAMPLES) {
      examples.add(example);
    }
    return this;
  }

  public String name() {
    return name;
  }

  public boolean passed() {
    return violations == 0;
  }

  public long violations() {
    return violations;
  }

  /** The value of a count, 0 when never counted. */
  public long get(String key) {
    return counts.getOrDefault(key, 0L);
  }

  public Map<String, Long> counts() {
    return Map.copyOf(counts);
  }

  public List<String> examples() {
    return List.copyOf(examples);
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder(passed() ? "PASS " : "FAIL ").append(name);
    if (!counts.isEmpty()) {
      out.append("  ");
      counts.forEach((k, v) -> out.append(k).append('=').append(v).append(' '));
    }
    if (!passed()) {
      out.append("\n      violations=").append(violations);
      examples.forEach(e -> out.append("\n      - ").append(e));
    }
    return out.toString().stripTrailing();
  }
}
