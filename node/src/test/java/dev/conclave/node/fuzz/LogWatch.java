package dev.conclave.node.fuzz;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the node logs while it is fuzzed, captured in memory (an appender on the root logger, beside
 * the test's console appender). Only what can be a finding is kept: events at ERROR, and events of
 * any level that carry a throwable (a stack trace in the log).
 */
final class LogWatch extends AppenderBase<ILoggingEvent> {

  /** One captured event. */
  record Entry(String level, String logger, String thread, String message, String pattern, String throwable) {

    /** The same log line from the same place, whatever the values in it: what findings are grouped by. */
    String signature() {
      String first = throwable == null ? "" : throwable.lines().findFirst().orElse("");
      // the same failure with other values in its message is the same finding
      first = first.replaceAll("'[^']*'", "'…'").replaceAll(" of: .*| at index .*", "").replaceAll("[0-9]+", "N");
      // a message built by concatenation (no placeholders) ends in the values that vary: cut them off
      String shape = pattern == null ? "" : pattern.contains("{}") ? pattern : pattern.replaceAll("(?s):\\s.*", ": …");
      return level + " " + logger + " \"" + Findings.abbreviate(shape, 120) + "\"" + (throwable == null ? "" : " with " + Findings.abbreviate(first, 160));
    }

    @Override
    public String toString() {
      return level + " [" + thread + "] " + logger + " - " + message + (throwable == null ? "" : "\n    " + throwable);
    }
  }

  private final ConcurrentLinkedQueue<Entry> events = new ConcurrentLinkedQueue<>();

  static LogWatch install() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    LogWatch watch = new LogWatch();
    watch.setContext(context);
    watch.setName("conclave-fuzz-watch");
    watch.start();
    context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(watch);
    return watch;
  }

  @Override
  protected void append(ILoggingEvent e) {
    IThrowableProxy t = e.getThrowableProxy();
    if (t == null && !e.getLevel().isGreaterOrEqual(Level.ERROR)) {
      return;
    }
    events.add(new Entry(e.getLevel().toString(), e.getLoggerName(), e.getThreadName(), e.getFormattedMessage(),
      e.getMessage(), t == null ? null : describe(t)));
  }

  private static String describe(IThrowableProxy t) {
    StringBuilder out = new StringBuilder();
    for (IThrowableProxy c = t; c != null; c = c.getCause()) {
      if (!out.isEmpty()) {
        out.append("\n    caused by ");
      }
      out.append(c.getClassName()).append(": ").append(c.getMessage());
      var frames = c.getStackTraceElementProxyArray();
      for (int i = 0; frames != null && i < Math.min(4, frames.length); i++) {
        out.append("\n      at ").append(frames[i].getStackTraceElement());
      }
    }
    return out.toString();
  }

  /** Everything captured since the last call. */
  List<Entry> drain() {
    List<Entry> out = new ArrayList<>();
    for (Entry e; (e = events.poll()) != null; ) {
      out.add(e);
    }
    return out;
  }
}
