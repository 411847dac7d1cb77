package dev.conclave.settings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/** The parsers settings share; each failure names the variable ({@link Values}). */
public final class Parsers {

  private Parsers() {
  }

  public static final Setting.Parser<String> TEXT = (variable, text) -> text;
  /** A TCP port, {@code 0} meaning any free port. */
  public static final Setting.Parser<Integer> PORT = (variable, text) -> Values.port(variable, text, true);
  public static final Setting.Parser<Integer> POSITIVE = Values::positive;
  public static final Setting.Parser<Integer> INTEGER = Values::integer;
  /** A positive whole number of seconds. */
  public static final Setting.Parser<Duration> SECONDS = (variable, text) -> Duration.ofSeconds(Values.positive(variable, text));
  /** A positive whole number of days. */
  public static final Setting.Parser<Duration> DAYS = (variable, text) -> Duration.ofDays(Values.positive(variable, text));
  public static final Setting.Parser<Path> PATH = (variable, text) -> Path.of(text);

  /** true, on, yes, 1 or false, off, no, 0 (any case). */
  public static final Setting.Parser<Boolean> BOOLEAN = (variable, text) -> switch (text.toLowerCase(Locale.ROOT)) {
    case "true", "on", "yes", "1" -> true;
    case "false", "off", "no", "0" -> false;
    default -> throw new ConfigException(variable, "must be true or false, got '" + text + "'");
  };

  /** A whole number from {@code min} to {@code max}. */
  public static Setting.Parser<Integer> between(int min, int max) {
    return (variable, text) -> {
      int value = Values.integer(variable, text);
      if (value < min || value > max) {
        throw new ConfigException(variable, "must be between " + min + " and " + max + ", got " + value);
      }
      return value;
    };
  }
}
