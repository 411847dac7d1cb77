package dev.conclave.platform.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;

/** Collects what every logger of this JVM logs at {@code minimum} or above while it is open. */
public final class LogCapture implements AutoCloseable {

  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final Level minimum;
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  private LogCapture(Level minimum) {
    this.minimum = minimum;
    appender.start();
    root.addAppender(appender);
  }

  /** Captures WARN and ERROR lines. */
  public static LogCapture warnings() {
    return new LogCapture(Level.WARN);
  }

  /** Captures lines at {@code minimum} and above. */
  public static LogCapture atLeast(Level minimum) {
    return new LogCapture(minimum);
  }

  /**
   * The captured events as the test configuration's console appender writes them (its encoder and
   * pattern, so what a log file would hold); the text of every event, one after another.
   */
  public String rendered() {
    ch.qos.logback.core.encoder.Encoder<ILoggingEvent> encoder = null;
    for (var it = root.iteratorForAppenders(); it.hasNext(); ) {
      if (it.next() instanceof ch.qos.logback.core.OutputStreamAppender<ILoggingEvent> out) {
        encoder = out.getEncoder();
        break;
      }
    }
    if (encoder == null) {
      throw new IllegalStateException("no console appender on the root logger: the test logback configuration is not loaded");
    }
    StringBuilder text = new StringBuilder();
    synchronized (appender) {
      for (ILoggingEvent e : appender.list) {
        if (e.getLevel().isGreaterOrEqual(minimum)) {
          text.append(new String(encoder.encode(e), java.nio.charset.StandardCharsets.UTF_8));
        }
      }
    }
    return text.toString();
  }

  /** The captured ERROR lines, formatted. */
  public List<String> errors() {
    return lines(Level.ERROR);
  }

  /** The captured lines at {@code level} or above, formatted ("LEVEL logger: message"). */
  public List<String> lines(Level level) {
    synchronized (appender) {
      return appender.list.stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(level) && e.getLevel().isGreaterOrEqual(minimum))
        .map(e -> e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage())
        .toList();
    }
  }

  @Override
  public void close() {
    root.detachAppender(appender);
    appender.stop();
  }
}
