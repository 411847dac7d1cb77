package dev.conclave.agent.backend;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Recognises backend errors that are worth one more try: overload, rate limits, server errors.
 * Status codes count only as whole numbers, so "max_tokens 1500" or "took 5291 ms" is not a 500 or a 529.
 */
public final class TransientErrors {

  private static final Pattern MARKERS =
    Pattern.compile("(?<![0-9])(500|529)(?![0-9])|api_error|overloaded|rate_limit");

  private TransientErrors() {
  }

  /** Whether the raw error text of a failed run names a transient condition. */
  public static boolean retryable(String rawError) {
    return rawError != null && MARKERS.matcher(rawError.toLowerCase(Locale.ROOT)).find();
  }
}
