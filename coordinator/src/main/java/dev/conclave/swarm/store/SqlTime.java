package dev.conclave.swarm.store;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** Time as the swarm functions take it: UTC, millisecond precision (what the JSON shapes carry). */
public final class SqlTime {

  private SqlTime() {
  }

  public static OffsetDateTime of(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MILLIS).atOffset(ZoneOffset.UTC);
  }
}
