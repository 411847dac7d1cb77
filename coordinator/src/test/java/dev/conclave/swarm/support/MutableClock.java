package dev.conclave.swarm.support;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.atomic.AtomicReference;

/** A clock tests move by hand, so time-based rules are tested without sleeping. */
public final class MutableClock extends Clock {

  private final AtomicReference<Instant> now;

  public MutableClock(Instant start) {
    this.now = new AtomicReference<>(start.truncatedTo(ChronoUnit.MILLIS));
  }

  public static MutableClock startingNow() {
    return new MutableClock(Instant.now());
  }

  public void advance(Duration by) {
    now.updateAndGet(t -> t.plus(by));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
