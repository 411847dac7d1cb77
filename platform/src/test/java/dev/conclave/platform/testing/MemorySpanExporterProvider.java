package dev.conclave.platform.testing;

import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import io.opentelemetry.sdk.autoconfigure.spi.traces.ConfigurableSpanExporterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.export.SpanExporter;

/**
 * {@code OTEL_TRACES_EXPORTER=memory} (tests only, registered in META-INF/services): the node's
 * autoconfigured SDK exports into {@link #SPANS}, so a test reads what a real node traced.
 */
public final class MemorySpanExporterProvider implements ConfigurableSpanExporterProvider {

  public static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();

  @Override
  public SpanExporter createExporter(ConfigProperties config) {
    // the SDK shuts its exporter down at the node's stop; the shared one must outlive a node
    return new SpanExporter() {
      @Override
      public io.opentelemetry.sdk.common.CompletableResultCode export(java.util.Collection<io.opentelemetry.sdk.trace.data.SpanData> spans) {
        return SPANS.export(spans);
      }

      @Override
      public io.opentelemetry.sdk.common.CompletableResultCode flush() {
        return SPANS.flush();
      }

      @Override
      public io.opentelemetry.sdk.common.CompletableResultCode shutdown() {
        return io.opentelemetry.sdk.common.CompletableResultCode.ofSuccess();
      }
    };
  }

  @Override
  public String getName() {
    return "memory";
  }
}
