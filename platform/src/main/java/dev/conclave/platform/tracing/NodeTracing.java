package dev.conclave.platform.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.tracing.opentelemetry.OpenTelemetryOptions;
import io.vertx.tracing.opentelemetry.OpenTelemetryTracingFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The node's OpenTelemetry tracing, configured the standard way: the SDK's autoconfiguration reads
 * the {@code OTEL_*} variables (or {@code otel.*} system properties): exporter, endpoint, protocol,
 * service name, resource attributes, sampler. Vert.x's own integration (vertx-opentelemetry) then
 * traces the HTTP server (gRPC included: it is served through it), the HTTP client, the event bus and
 * the PostgreSQL client, taking a caller's W3C {@code traceparent} as the parent.
 *
 * <p>Off unless {@code OTEL_TRACES_EXPORTER} names an exporter ({@code otlp}, {@code console},
 * {@code logging}, …; not {@code none}) and {@code OTEL_SDK_DISABLED} is not {@code true}: the SDK's
 * own default would be {@code otlp} to localhost, which a node must not start doing by itself. Off,
 * Vert.x gets no tracer at all, so no request pays for tracing.
 *
 * <p>Metrics and logs stay with Prometheus and logback: this SDK exports traces only.
 */
public final class NodeTracing implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeTracing.class);
  static final String SERVICE_NAME = "conclave";

  /** The tracing of each running node's Vert.x (several nodes share a JVM in tests). */
  private static final Map<Vertx, NodeTracing> BY_VERTX = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
  private static final NodeTracing OFF = new NodeTracing(Optional.empty());

  private final Optional<OpenTelemetrySdk> sdk;

  private NodeTracing(Optional<OpenTelemetrySdk> sdk) {
    this.sdk = sdk;
  }

  /**
   * Tracing as the process's environment and system properties configure it (a system property
   * {@code otel.traces.exporter} wins over {@code OTEL_TRACES_EXPORTER}, as in the SDK).
   */
  public static NodeTracing fromEnvironment(String nodeId) {
    String exporter = lookup("OTEL_TRACES_EXPORTER");
    if (exporter == null || exporter.isBlank() || exporter.trim().equals("none") || "true".equalsIgnoreCase(lookup("OTEL_SDK_DISABLED"))) {
      return new NodeTracing(Optional.empty());
    }
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
      .disableShutdownHook()
      .addPropertiesSupplier(() -> Map.of(
        "otel.service.name", SERVICE_NAME,
        // the exporter sends with the JDK's HTTP client, which speaks OTLP over HTTP only
        "otel.exporter.otlp.protocol", "http/protobuf",
        "otel.metrics.exporter", "none",
        "otel.logs.exporter", "none"))
      .addPropertiesCustomizer(config -> {
        // what the operator set wins over the defaults above; the node's id names the instance
        String attributes = config.getString("otel.resource.attributes", "");
        return Map.of("otel.resource.attributes",
          (attributes.isEmpty() ? "" : attributes + ",") + "service.instance.id=" + nodeId);
      })
      .build()
      .getOpenTelemetrySdk();
    LOG.info("tracing: on exporter={}", exporter);
    return new NodeTracing(Optional.of(sdk));
  }

  private static String lookup(String variable) {
    return Optional.ofNullable(System.getProperty(variable.toLowerCase().replace('_', '.'))).orElse(System.getenv(variable));
  }

  /**
   * The tracing of the node that runs on {@code vertx}: for code that has the node's Vert.x but not
   * its context (a session's dispatcher). Off for a Vert.x no node registered.
   */
  public static NodeTracing of(Vertx vertx) {
    return BY_VERTX.getOrDefault(vertx, OFF);
  }

  /** Makes this the tracing {@link #of} answers for {@code vertx}. */
  public void register(Vertx vertx) {
    if (enabled()) {
      BY_VERTX.put(vertx, this);
    }
  }

  /** Whether spans are made and exported. */
  public boolean enabled() {
    return sdk.isPresent();
  }

  /** The API to make spans with: a no-op one when tracing is off. */
  public OpenTelemetry openTelemetry() {
    return sdk.<OpenTelemetry>map(s -> s).orElse(OpenTelemetry.noop());
  }

  /** A tracer for Conclave's own spans (tool calls, approvals, dispatch). */
  public Tracer tracer() {
    return openTelemetry().getTracer("dev.conclave");
  }

  /** Gives Vert.x the tracer when tracing is on; leaves both alone otherwise. */
  public VertxBuilder install(VertxOptions options, VertxBuilder builder) {
    if (sdk.isEmpty()) {
      return builder;
    }
    options.setTracingOptions(new OpenTelemetryOptions());
    return builder.withTracer(new OpenTelemetryTracingFactory(sdk.get()));
  }

  /** Exports what is left and stops the SDK (bounded: a collector that does not answer does not hold the stop). */
  @Override
  public void close() {
    sdk.ifPresent(s -> {
      CompletableResultCode done = s.shutdown().join(5, TimeUnit.SECONDS);
      if (!done.isSuccess()) {
        LOG.warn("tracing: spans not all exported at stop");
      }
    });
  }
}
