package dev.conclave.node.docs;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import dev.conclave.platform.logging.NodeLogConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.status.Status;
import dev.conclave.platform.logging.NodeLogContext;
import dev.conclave.platform.logging.TraceIdsAppender;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code CONCLAVE_LOG_FORMAT=json} (issue 44): the node's log configuration writes one JSON object per line
 * through logback's own encoder, with the node's id and, inside a span, the trace and span ids; what a
 * caller put in a value (a forged line, quotes, controls) stays inside its field.
 */
class JsonLogTest {

  private LoggerContext context;
  private ByteArrayOutputStream out;
  private ByteArrayOutputStream text;

  @BeforeEach
  void configure() throws Exception {
    configure("json");
  }

  private void configure(String format) throws Exception {
    context = new LoggerContext();
    // what logback's service provider gives the process's context; a context made here has none
    context.setMDCAdapter(new LogbackMDCAdapter());
    NodeLogConfigurator.configure(context, java.util.Map.of("CONCLAVE_LOG_FORMAT", format));
    assertThat(context.getStatusManager().getCopyOfStatusList()).filteredOn(s -> s.getLevel() >= Status.WARN)
      .extracting(Status::getMessage).isEmpty();
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    TraceIdsAppender json = (TraceIdsAppender) root.getAppender("json");
    assertThat(json).as("the json appender").isNotNull();
    @SuppressWarnings("unchecked")
    OutputStreamAppender<ILoggingEvent> console = (OutputStreamAppender<ILoggingEvent>) json.getAppender("json-out");
    out = new ByteArrayOutputStream();
    console.setOutputStream(out);
    @SuppressWarnings("unchecked")
    OutputStreamAppender<ILoggingEvent> plain = (OutputStreamAppender<ILoggingEvent>) root.getAppender("text");
    text = new ByteArrayOutputStream();
    plain.setOutputStream(text);
    context.putProperty(NodeLogContext.NODE, "node-7");
  }

  @AfterEach
  void stop() {
    context.stop();
  }

  @Test
  void onlyTheChosenFormatWrites() throws Exception {
    context.getLogger("dev.conclave.Test").info("in json");
    assertThat(text.size()).as("the text appender in json mode").isZero();
    assertThat(lines()).hasSize(1);
    context.stop();

    configure("text");
    context.getLogger("dev.conclave.Test").info("in text");
    assertThat(out.size()).as("the json appender in text mode").isZero();
    assertThat(text.toString(StandardCharsets.UTF_8)).contains("INFO  Test - in text");
  }

  @Test
  void aForgedLineStaysInsideItsField() {
    String forged = "x\r\n{\"level\":\"ERROR\",\"formattedMessage\":\"FORGED\"}\u0000\u202E\"";
    context.getLogger("dev.conclave.gateway.Test").warn("agent registration refused agent={} reason={}", forged, "a\\b");

    List<String> lines = lines();
    assertThat(lines).hasSize(1);
    JsonObject line = new JsonObject(lines.get(0));
    assertThat(line.getString("formattedMessage")).isEqualTo("agent registration refused agent=" + forged + " reason=a\\b");
    assertThat(line.getString("level")).isEqualTo("WARN");
    assertThat(line.getString("loggerName")).isEqualTo("dev.conclave.gateway.Test");
    assertThat(line.getLong("timestamp")).isPositive();
    assertThat(line.getJsonObject("context").getJsonObject("properties").getString(NodeLogContext.NODE)).isEqualTo("node-7");
    assertThat(line.getJsonObject("mdc")).as("no span, no trace ids").isEmpty();
  }

  @Test
  void insideASpanALineCarriesItsTraceAndSpanIds() {
    try (SdkTracerProvider tracing = SdkTracerProvider.builder()
      // a provider without a processor hands out invalid spans
      .addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create())).build()) {
      Span span = tracing.get("test").spanBuilder("send").startSpan();
      try (Scope ignored = span.makeCurrent()) {
        context.getLogger("dev.conclave.Test").info("inside");
      } finally {
        span.end();
      }
      context.getLogger("dev.conclave.Test").error("outside", new IllegalStateException("bad\nline"));

      List<String> lines = lines();
      assertThat(lines).hasSize(2);
      JsonObject inside = new JsonObject(lines.get(0)).getJsonObject("mdc");
      assertThat(inside.getString(TraceIdsAppender.TRACE_ID)).isEqualTo(span.getSpanContext().getTraceId());
      assertThat(inside.getString(TraceIdsAppender.SPAN_ID)).isEqualTo(span.getSpanContext().getSpanId());
      JsonObject outside = new JsonObject(lines.get(1));
      assertThat(outside.getJsonObject("mdc")).isEmpty();
      assertThat(outside.getJsonObject("throwable").getString("message")).isEqualTo("bad\nline");
    }
  }

  private List<String> lines() {
    return out.toString(StandardCharsets.UTF_8).lines().toList();
  }
}
