package dev.conclave.platform.validation;

import java.util.Optional;

/**
 * What identifiers and display names may hold, for every service: ids are short and plain (letters,
 * digits, a few separators), names are free text of any script but never control characters or the
 * invisible formatting and bidirectional marks that make a name read as something else
 * ({@code admin\u202E tnega}). Each rule answers why a value breaks it, for a precise error.
 */
public final class TextRules {

  public static final int MAX_ID = 200;
  public static final int MAX_NAME = 200;
  private static final String ID_PUNCTUATION = "._-:@/+=";

  private TextRules() {
  }

  /** Why {@code value} is not an identifier, or empty when it is one. */
  public static Optional<String> idProblem(String value, int max) {
    if (value.isEmpty()) {
      return Optional.of("is required");
    }
    if (value.length() > max) {
      return Optional.of("must be at most " + max + " characters, got " + value.length());
    }
    int bad = value.codePoints().filter(c -> !Character.isLetterOrDigit(c) && ID_PUNCTUATION.indexOf(c) < 0).findFirst().orElse(-1);
    if (bad >= 0) {
      return Optional.of("may contain only letters, digits and " + ID_PUNCTUATION + " (found " + describe(bad) + ")");
    }
    return Optional.empty();
  }

  /** Why {@code value} is not a display name, or empty when it is one. */
  public static Optional<String> nameProblem(String value, int max) {
    if (value.length() > max) {
      return Optional.of("must be at most " + max + " characters, got " + value.length());
    }
    int bad = value.codePoints().filter(TextRules::hidden).findFirst().orElse(-1);
    if (bad >= 0) {
      return Optional.of("must not contain control or bidirectional/formatting characters (found " + describe(bad) + ")");
    }
    return Optional.empty();
  }

  /**
   * A caller's value made safe to repeat in an error or a log line: at most {@link #ECHO_CHARACTERS}
   * characters, hidden characters written as {@code U+XXXX}.
   */
  public static String echo(String value) {
    StringBuilder out = new StringBuilder();
    value.codePoints().limit(ECHO_CHARACTERS).forEach(c -> {
      if (hidden(c)) {
        out.append(String.format("U+%04X", c));
      } else {
        out.appendCodePoint(c);
      }
    });
    return value.codePointCount(0, value.length()) > ECHO_CHARACTERS ? out + "…" : out.toString();
  }

  public static final int ECHO_CHARACTERS = 80;

  /** {@code value} without the characters a name may not hold, for names taken from elsewhere (an SSH key's comment). */
  public static String visible(String value) {
    return value.codePoints().filter(c -> !hidden(c))
      .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
  }

  /** Control characters, formatting marks (bidi overrides, zero-width), line and paragraph separators. */
  private static boolean hidden(int c) {
    int type = Character.getType(c);
    return type == Character.CONTROL || type == Character.FORMAT || type == Character.LINE_SEPARATOR
      || type == Character.PARAGRAPH_SEPARATOR || type == Character.PRIVATE_USE || type == Character.UNASSIGNED;
  }

  private static String describe(int c) {
    return String.format("U+%04X", c) + (Character.isISOControl(c) || hidden(c) ? "" : " '" + new String(Character.toChars(c)) + "'");
  }
}
