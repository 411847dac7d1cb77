package dev.conclave.platform.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import ch.qos.logback.core.spi.AppenderAttachable;
import ch.qos.logback.core.spi.AppenderAttachableImpl;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import org.slf4j.MDC;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Puts the current span's {@code trace_id} and {@code span_id} into an event's MDC, then hands the
 * event to the appenders it wraps (the JSON one: {@link NodeLogConfigurator}). Outside a span, or with tracing
 * off, the event passes unchanged.
 *
 * <p>Why not OpenTelemetry's {@code logback-mdc} appender, which does the same: it also replaces the
 * event's logger-context view with the MDC, which drops the context's properties, and the node's id
 * is one ({@link NodeLogContext}). The MDC is set through logback's public
 * {@link LoggingEvent#setMDCPropertyMap}, on the logging thread, before any encoder has read it.
 */
public final class TraceIdsAppender extends UnsynchronizedAppenderBase<ILoggingEvent> implements AppenderAttachable<ILoggingEvent> {

  public static final String TRACE_ID = "trace_id";
  public static final String SPAN_ID = "span_id";

  private final AppenderAttachableImpl<ILoggingEvent> appenders = new AppenderAttachableImpl<>();

  @Override
  protected void append(ILoggingEvent event) {
    SpanContext span = Span.current().getSpanContext();
    if (span.isValid() && event instanceof LoggingEvent logging) {
      Map<String, String> mdc = new HashMap<>();
      Map<String, String> thread = MDC.getCopyOfContextMap();
      if (thread != null) {
        mdc.putAll(thread);
      }
      mdc.put(TRACE_ID, span.getTraceId());
      mdc.put(SPAN_ID, span.getSpanId());
      try {
        logging.setMDCPropertyMap(mdc);
      } catch (IllegalStateException alreadyRead) {
        // another appender read the MDC first: the event keeps it as it is
      }
    }
    appenders.appendLoopOnAppenders(event);
  }

  @Override
  public void stop() {
    super.stop();
    appenders.detachAndStopAllAppenders();
  }

  @Override
  public void addAppender(Appender<ILoggingEvent> appender) {
    appenders.addAppender(appender);
  }

  @Override
  public Iterator<Appender<ILoggingEvent>> iteratorForAppenders() {
    return appenders.iteratorForAppenders();
  }

  @Override
  public Appender<ILoggingEvent> getAppender(String name) {
    return appenders.getAppender(name);
  }

  @Override
  public boolean isAttached(Appender<ILoggingEvent> appender) {
    return appenders.isAttached(appender);
  }

  @Override
  public void detachAndStopAllAppenders() {
    appenders.detachAndStopAllAppenders();
  }

  @Override
  public boolean detachAppender(Appender<ILoggingEvent> appender) {
    return appenders.detachAppender(appender);
  }

  @Override
  public boolean detachAppender(String name) {
    return appenders.detachAppender(name);
  }
}
