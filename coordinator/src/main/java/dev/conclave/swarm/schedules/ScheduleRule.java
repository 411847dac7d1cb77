package dev.conclave.swarm.schedules;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.conclave.swarm.errors.SwarmErrors;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * When a schedule's slots fall: a standard 5-field cron expression read in an IANA time zone (so a
 * daily 09:00 stays 09:00 local across DST), or a fixed period ({@code every}, an ISO-8601 duration of
 * whole seconds) whose slots are the multiples of it since 1970-01-01T00:00Z. It also decides a
 * tick's catch-up: of the slots that passed, only the latest fires, the others are counted missed.
 */
public final class ScheduleRule {

  public static final Duration MIN_EVERY = Duration.ofSeconds(1);
  public static final Duration MAX_EVERY = Duration.ofDays(366);
  /** Cron slots one step walks at most: a long downtime is walked over several ticks, never one long loop. */
  static final int WALK = 10_000;
  /** The next run of a rule with no slot left (none that validates reaches it): stored, never due. */
  static final Instant NEVER = Instant.parse("9999-12-31T00:00:00Z");

  private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

  /**
   * What a tick does with a due schedule: fire {@code fire} (null: not yet, the walk through missed
   * slots goes on from {@code nextRunAt} at the next tick), count {@code missed} slots skipped, and
   * wait for {@code nextRunAt}.
   */
  public record Step(Instant fire, long missed, Instant nextRunAt) {
  }

  private final String cron;
  private final Duration every;
  private final ZoneId zone;
  private final ExecutionTime execution;

  private ScheduleRule(String cron, Duration every, ZoneId zone, ExecutionTime execution) {
    this.cron = cron;
    this.every = every;
    this.zone = zone;
    this.execution = execution;
  }

  /**
   * The rule a request gives: exactly one of {@code cron} and {@code every}; {@code timezone} an IANA
   * id (null: UTC). Bad input is a 400 naming the member.
   */
  public static ScheduleRule of(String cron, String every, String timezone) {
    if (cron != null && every != null) {
      throw SwarmErrors.invalidField("cron", "and every: give one of them, not both");
    }
    if (cron == null && every == null) {
      throw SwarmErrors.invalidField("cron", "or every is required (a 5-field cron expression, or an ISO-8601 duration such as PT1H)");
    }
    ZoneId zone = zone(timezone);
    return cron != null ? cron(cron, zone) : every(every, zone);
  }

  private static ZoneId zone(String timezone) {
    if (timezone == null) {
      return ZoneId.of("UTC");
    }
    if (!ZoneId.getAvailableZoneIds().contains(timezone)) {
      throw SwarmErrors.invalidField("timezone", "must be an IANA time zone such as Europe/Berlin or UTC, got '" + timezone + "'");
    }
    return ZoneId.of(timezone);
  }

  private static ScheduleRule cron(String text, ZoneId zone) {
    String expression = text.trim();
    if (expression.split("\\s+").length != 5) {
      throw SwarmErrors.invalidField("cron", "must have 5 fields (minute hour day-of-month month day-of-week), got '" + text + "'");
    }
    Cron parsed;
    try {
      parsed = UNIX.parse(expression).validate();
    } catch (IllegalArgumentException e) {
      throw SwarmErrors.invalidField("cron", "is not a valid cron expression ('" + text + "'): " + e.getMessage());
    }
    ExecutionTime execution = ExecutionTime.forCron(parsed);
    ScheduleRule rule = new ScheduleRule(expression, null, zone, execution);
    if (rule.next(Instant.EPOCH.plus(Duration.ofDays(365 * 56))).isEmpty()) {
      throw SwarmErrors.invalidField("cron", "never matches a date ('" + text + "')");
    }
    return rule;
  }

  private static ScheduleRule every(String text, ZoneId zone) {
    Duration every;
    try {
      every = Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw SwarmErrors.invalidField("every", "must be an ISO-8601 duration such as PT30S, PT1H or P1D, got '" + text + "'");
    }
    if (every.getNano() != 0 || every.compareTo(MIN_EVERY) < 0 || every.compareTo(MAX_EVERY) > 0) {
      throw SwarmErrors.invalidField("every", "must be whole seconds from PT1S to P366D, got '" + text + "'");
    }
    return new ScheduleRule(null, every, zone, null);
  }

  /** The cron expression as stored (trimmed), or null. */
  public String cron() {
    return cron;
  }

  /** The period in its ISO-8601 form (PT1H), or null. */
  public String every() {
    return every == null ? null : every.toString();
  }

  public String timezone() {
    return zone.getId();
  }

  /** The first slot strictly after {@code t}. */
  public Instant firstAfter(Instant t) {
    if (every != null) {
      long period = every.toMillis();
      return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), period) * period + period);
    }
    return next(t).orElseThrow(() -> new IllegalStateException("cron " + cron + " has no slot after " + t));
  }

  /** What a tick at {@code now} does with a schedule due at {@code nextRunAt} (a slot, not after now). */
  public Step step(Instant nextRunAt, Instant now) {
    if (every != null) {
      long period = every.toMillis();
      long latest = Math.floorDiv(now.toEpochMilli(), period) * period;
      long missed = Math.max(0, (latest - nextRunAt.toEpochMilli()) / period);
      return new Step(Instant.ofEpochMilli(latest), missed, Instant.ofEpochMilli(latest + period));
    }
    Instant slot = nextRunAt;
    long missed = 0;
    for (int walked = 0; walked < WALK; walked++) {
      Optional<Instant> after = next(slot);
      if (after.isEmpty() || after.get().isAfter(now)) {
        return new Step(slot, missed, after.orElse(NEVER));
      }
      slot = after.get();
      missed++;
    }
    return new Step(null, missed, slot);
  }

  private Optional<Instant> next(Instant t) {
    try {
      return execution.nextExecution(t.atZone(zone)).map(z -> z.toInstant());
    } catch (DateTimeException e) {
      return Optional.empty();
    }
  }
}
