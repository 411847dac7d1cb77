package dev.conclave.platform.config;

import java.nio.file.Path;
import java.time.Duration;

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
}
