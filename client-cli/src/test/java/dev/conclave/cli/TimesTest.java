package dev.conclave.cli;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code audit --since/--until}: ISO-8601 times as they are, spans counted back from now, anything else a usage error. */
class TimesTest {

  private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");

  @Test
  void shortSpansCountBackFromNow() {
    assertThat(Times.parse("--since", "90s", NOW)).isEqualTo("2026-12-06T11:58:30Z");
    assertThat(Times.parse("--since", "30m", NOW)).isEqualTo("2026-12-06T11:30:00Z");
    assertThat(Times.parse("--since", "1h", NOW)).isEqualTo("2026-12-06T11:00:00Z");
    assertThat(Times.parse("--since", "2d", NOW)).isEqualTo("2026-12-04T12:00:00Z");
  }

  @Test
  void isoDurationsCountBackFromNow() {
    assertThat(Times.parse("--since", "PT1H30M", NOW)).isEqualTo("2026-12-06T10:30:00Z");
    assertThat(Times.parse("--since", "P1D", NOW)).isEqualTo("2026-12-05T12:00:00Z");
  }

  @Test
  void isoTimesAreTakenAsTheyAre() {
    assertThat(Times.parse("--until", "2026-12-01T00:00:00Z", NOW)).isEqualTo("2026-12-01T00:00:00Z");
    assertThat(Times.parse("--until", "2026-12-01T01:00:00+01:00", NOW)).isEqualTo("2026-12-01T00:00:00Z");
  }

  @Test
  void anythingElseIsAUsageErrorNamingTheFlag() {
    for (String bad : new String[] {"yesterday", "1w", "-1h", "PT-1H", "2026-13-01T00:00:00Z", ""}) {
      assertThatThrownBy(() -> Times.parse("--since", bad, NOW)).as(bad).isInstanceOf(CliFailure.class)
        .hasMessageStartingWith("--since must be an ISO-8601 time")
        .satisfies(e -> assertThat(((CliFailure) e).exitCode()).isEqualTo(ExitCodes.USAGE));
    }
  }
}
