package dev.conclave.platform.errors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One WARN line per refused bad input, never a stack trace, at most {@link #LINES_PER_SECOND} lines a
 * second for the whole process: a client (or a fuzzer) sending thousands of malformed requests
 * cannot flood the log. Lines over the budget are counted, and the next line that is written says
 * how many were left out.
 */
public final class BadInputLog {

  private static final Logger LOG = LoggerFactory.getLogger("dev.conclave.badinput");
  static final int LINES_PER_SECOND = 10;

  private static final AtomicLong window = new AtomicLong();
  private static final AtomicLong written = new AtomicLong();
  private static final AtomicLong suppressed = new AtomicLong();

  private BadInputLog() {
  }

  /** Starts a fresh one-second budget (tests: lines an earlier test wrote in this second must not hide theirs). */
  static void newWindow() {
    window.set(0);
    written.set(0);
  }

  /** Logs that {@code where} refused a caller's input with {@code refusal}. */
  public static void refused(String where, ConclaveException refusal) {
    long second = System.currentTimeMillis() / 1000;
    long current = window.get();
    if (current != second && window.compareAndSet(current, second)) {
      written.set(0);
    }
    if (written.incrementAndGet() > LINES_PER_SECOND) {
      suppressed.incrementAndGet();
      return;
    }
    long left = suppressed.getAndSet(0);
    LOG.warn("bad input refused where={} code={} detail={}{}", where, refusal.code(),
      dev.conclave.platform.validation.TextRules.echo(refusal.detail()), left > 0 ? " (" + left + " more not logged)" : "");
  }
}
