package dev.conclave.swarm.schedules;

import dev.conclave.swarm.errors.SwarmProblem;
import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Where a schedule's slots fall, in time zones and across DST, and what a late tick fires and skips. */
class ScheduleRuleTest {

  private static Instant at(String iso) {
    return Instant.parse(iso);
  }

  @Test
  void everyPeriodSlotsAreMultiplesOfThePeriodSinceTheEpoch() {
    ScheduleRule hourly = ScheduleRule.of(null, "PT1H", null);
    assertThat(hourly.every()).isEqualTo("PT1H");
    assertThat(hourly.timezone()).isEqualTo("UTC");
    assertThat(hourly.firstAfter(at("2026-12-05T10:20:30.400Z"))).isEqualTo(at("2026-12-05T11:00:00Z"));
    assertThat(hourly.firstAfter(at("2026-12-05T11:00:00Z"))).as("strictly after").isEqualTo(at("2026-12-05T12:00:00Z"));
    assertThat(ScheduleRule.of(null, "PT1S", null).firstAfter(at("2026-12-05T10:20:30.400Z"))).isEqualTo(at("2026-12-05T10:20:31Z"));
  }

  @Test
  void aTickOnTimeFiresTheSlotAndMissesNothing() {
    ScheduleRule hourly = ScheduleRule.of(null, "PT1H", null);
    ScheduleRule.Step step = hourly.step(at("2026-12-05T11:00:00Z"), at("2026-12-05T11:00:00.300Z"));
    assertThat(step).isEqualTo(new ScheduleRule.Step(at("2026-12-05T11:00:00Z"), 0, at("2026-12-05T12:00:00Z")));
  }

  @Test
  void aLateTickFiresOnlyTheLatestSlotAndCountsTheOthersMissed() {
    ScheduleRule hourly = ScheduleRule.of(null, "PT1H", null);
    ScheduleRule.Step step = hourly.step(at("2026-12-05T11:00:00Z"), at("2026-12-05T15:30:00Z"));
    assertThat(step).isEqualTo(new ScheduleRule.Step(at("2026-12-05T15:00:00Z"), 4, at("2026-12-05T16:00:00Z")));

    ScheduleRule quarterly = ScheduleRule.of("*/15 * * * *", null, null);
    step = quarterly.step(at("2026-12-05T11:00:00Z"), at("2026-12-05T12:05:00Z"));
    assertThat(step).isEqualTo(new ScheduleRule.Step(at("2026-12-05T12:00:00Z"), 4, at("2026-12-05T12:15:00Z")));
  }

  @Test
  void aVeryLongDowntimeIsWalkedInBoundedStepsAndCountedExactly() {
    ScheduleRule minutely = ScheduleRule.of("* * * * *", null, null);
    Instant from = at("2026-01-01T00:00:00Z");
    Instant now = from.plusSeconds(60L * (ScheduleRule.WALK + 500) + 10);
    ScheduleRule.Step first = minutely.step(from, now);
    assertThat(first.fire()).as("not yet: the walk goes on").isNull();
    assertThat(first.missed()).isEqualTo(ScheduleRule.WALK);
    ScheduleRule.Step second = minutely.step(first.nextRunAt(), now);
    assertThat(second.fire()).isEqualTo(from.plusSeconds(60L * (ScheduleRule.WALK + 500)));
    assertThat(first.missed() + second.missed()).isEqualTo(ScheduleRule.WALK + 500);
  }

  @Test
  void cronIsReadInItsTimeZoneAcrossDaylightSavingTime() {
    ScheduleRule nineInNewYork = ScheduleRule.of("0 9 * * *", null, "America/New_York");
    assertThat(nineInNewYork.firstAfter(at("2026-01-10T00:00:00Z"))).as("EST").isEqualTo(at("2026-01-10T14:00:00Z"));
    assertThat(nineInNewYork.firstAfter(at("2026-07-10T00:00:00Z"))).as("EDT").isEqualTo(at("2026-07-10T13:00:00Z"));
    // the night the clocks go forward (2026-03-08) and the day after
    assertThat(nineInNewYork.firstAfter(at("2026-03-08T05:00:00Z"))).isEqualTo(at("2026-03-08T13:00:00Z"));
  }

  @Test
  void cronSupportsTheStandardFields() {
    ScheduleRule weekdays = ScheduleRule.of("30 8 * * 1-5", null, "UTC");
    // 2026-12-05 is a Saturday: the next weekday 08:30 is Monday the 7th
    assertThat(weekdays.firstAfter(at("2026-12-05T09:00:00Z"))).isEqualTo(at("2026-12-07T08:30:00Z"));
    ScheduleRule monthly = ScheduleRule.of("0 0 1 * *", null, null);
    assertThat(monthly.firstAfter(at("2026-12-05T09:00:00Z"))).isEqualTo(at("2027-01-01T00:00:00Z"));
  }

  @Test
  void badRulesAreRefusedNamingTheMember() {
    assertRefused(() -> ScheduleRule.of("61 * * * *", null, null), "cron");
    assertRefused(() -> ScheduleRule.of("* * * *", null, null), "cron");
    assertRefused(() -> ScheduleRule.of("0 0 * * * *", null, null), "cron");
    assertRefused(() -> ScheduleRule.of("every day", null, null), "cron");
    assertRefused(() -> ScheduleRule.of(null, "1h", null), "every");
    assertRefused(() -> ScheduleRule.of(null, "PT0.5S", null), "every");
    assertRefused(() -> ScheduleRule.of(null, "PT0S", null), "every");
    assertRefused(() -> ScheduleRule.of(null, "-PT1H", null), "every");
    assertRefused(() -> ScheduleRule.of(null, "P400D", null), "every");
    assertRefused(() -> ScheduleRule.of(null, "PT1H", "Mars/Olympus"), "timezone");
    assertRefused(() -> ScheduleRule.of("* * * * *", "PT1H", null), "cron");
    assertRefused(() -> ScheduleRule.of(null, null, null), "cron");
  }

  private static void assertRefused(Runnable make, String field) {
    assertThatThrownBy(make::run).isInstanceOfSatisfying(SwarmProblem.class, p -> {
      assertThat(p.extensions().getString("field")).isEqualTo(field);
      assertThat(p.detail()).startsWith(field + " ");
    });
  }
}
