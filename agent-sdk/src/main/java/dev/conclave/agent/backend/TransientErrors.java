package dev.conclave.agent.backend;

import java.util.List;
import java.util.Locale;

/** Recognises backend errors that are worth one more try: overload, rate limits, server errors. */
public final class TransientErrors {

  private static final List<String> MARKERS = List.of("500", "529", "api_error", "overloaded", "rate_limit");

  private TransientErrors() {
  }

  /** Whether the raw error text of a failed run names a transient condition. */
  public static boolean retryable(String rawError) {
    if (rawError == null) {
      return false;
    }
    String e = rawError.toLowerCase(Locale.ROOT);
    return MARKERS.stream().anyMatch(e::contains);
  }
}
