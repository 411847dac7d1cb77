package dev.conclave.platform.errors;

/**
 * For tests in other modules that assert on {@link BadInputLog}'s lines: the log's budget is for the
 * whole process, so lines that earlier tests wrote in the same second can hide a test's own.
 */
public final class BadInputLogBudget {

  private BadInputLogBudget() {
  }

  /** Starts a fresh one-second budget. */
  public static void reset() {
    BadInputLog.newWindow();
  }
}
