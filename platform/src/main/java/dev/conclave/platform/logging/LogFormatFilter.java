package dev.conclave.platform.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;

/**
 * Lets an appender of the node's log configuration ({@link NodeLogConfigurator}) write only when {@code CONCLAVE_LOG_FORMAT} names it: both the
 * text and the JSON appender stay attached to the root logger, and this filter silences the one not
 * chosen. Why not name the appender from the variable: logback warns about an appender no logger
 * references, and a warning makes it print its status on stdout, which the CLI keeps for what it
 * prints on purpose.
 */
public final class LogFormatFilter extends Filter<ILoggingEvent> {

  private String format;
  private String selected;

  /** The format this appender writes ({@code text}, {@code json}). */
  public void setFormat(String format) {
    this.format = format;
  }

  /** The format chosen for this process ({@code ${CONCLAVE_LOG_FORMAT:-text}}). */
  public void setSelected(String selected) {
    this.selected = selected;
  }

  @Override
  public FilterReply decide(ILoggingEvent event) {
    return format != null && format.equals(selected) ? FilterReply.NEUTRAL : FilterReply.DENY;
  }
}
