package dev.conclave.agent;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential backoff between connection attempts.
 *
 * <p>The delay before attempt {@code n} (0 for the first attempt after a working session ended,
 * counting up with each failed attempt, reset by every successful registration) is
 * {@code min(max, initial * multiplier^n)}, spread by {@code jitter}: multiplied by a random factor
 * in {@code [1 - jitter, 1 + jitter]} and capped at {@code max} again. Jitter keeps the agents of a
 * node that died from all reconnecting at the same instant.
 *
 * @param initial delay before the first attempt after a session ended
 * @param max cap on any delay
 * @param multiplier growth factor per failed attempt, at least 1
 * @param jitter spread as a fraction of the delay, in {@code [0, 1]}
 */
public record Backoff(Duration initial, Duration max, double multiplier, double jitter) {

  /** 500 ms, doubling, capped at 30 s, ±20 %. */
  public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), 2.0, 0.2);

  public Backoff {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("backoff initial delay must be positive");
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("backoff max delay must be at least the initial delay");
    }
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("backoff multiplier must be at least 1, got " + multiplier);
    }
    if (!(jitter >= 0.0 && jitter <= 1.0)) {
      throw new IllegalArgumentException("backoff jitter must be within [0, 1], got " + jitter);
    }
  }

  /**
   * The delay before attempt {@code attempt}.
   *
   * @param attempt 0 for the first attempt after a working session ended, then 1, 2, …
   * @param random a value in {@code [0, 1)} that picks the point within the jitter range
   */
  public Duration delay(int attempt, double random) {
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must not be negative");
    }
    double base = initial.toMillis() * Math.pow(multiplier, attempt);
    double capped = Math.min(max.toMillis(), base);
    double spread = capped * (1.0 + jitter * (2.0 * random - 1.0));
    long millis = Math.round(Math.min(max.toMillis(), Math.max(0.0, spread)));
    return Duration.ofMillis(millis);
  }
}
