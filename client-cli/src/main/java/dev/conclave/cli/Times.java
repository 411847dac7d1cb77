package dev.conclave.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Times on the command line ({@code audit --since}): an ISO-8601 instant ({@code 2026-12-06T01:00:00Z},
 * an offset allowed) or a span back from now, short ({@code 90s}, {@code 30m}, {@code 1h}, {@code 2d})
 * or ISO-8601 ({@code PT1H}, {@code P1D}). Anything else is a usage error naming the flag.
 */
public final class Times {

  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})([smhd])");

  private Times() {
  }

  /** The instant {@code text} names, spans counted back from {@code now}. */
  public static Instant parse(String flag, String text, Instant now) {
    String t = text.strip();
    Matcher m = SHORT.matcher(t);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      Duration span = switch (m.group(2)) {
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
      return now.minus(span);
    }
    if (t.startsWith("P") || t.startsWith("p")) {
      try {
        Duration span = Duration.parse(t);
        if (!span.isNegative()) {
          return now.minus(span);
        }
      } catch (DateTimeParseException e) {
        // reported below
      }
    } else {
      try {
        return OffsetDateTime.parse(t).toInstant();
      } catch (DateTimeParseException e) {
        try {
          return Instant.parse(t);
        } catch (DateTimeParseException again) {
          // reported below
        }
      }
    }
    throw CliFailure.usage(flag + " must be an ISO-8601 time (2026-12-06T01:00:00Z) or a span back from now "
      + "(90s, 30m, 1h, 2d, PT1H), got '" + text + "'");
  }
}
