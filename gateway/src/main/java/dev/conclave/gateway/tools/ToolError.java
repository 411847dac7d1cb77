package dev.conclave.gateway.tools;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import org.slf4j.Logger;

/**
 * A gateway tool's own failure (a bad question, an agent the caller may not read). Its message goes
 * to the agent verbatim as the tool's error, so it is short, specific and free of internals.
 */
public final class ToolError extends RuntimeException {

  public ToolError(String message) {
    super(message, null, false, false);
  }

  /** A failure of the gateway's work for a tool, as the agent sees it: its public detail (logged when internal). */
  public static ToolError of(Logger log, String where, Throwable failure) {
    if (failure instanceof ToolError e) {
      return e;
    }
    ConclaveException e = Failures.report(log, where, failure);
    return new ToolError(e.detail());
  }
}
