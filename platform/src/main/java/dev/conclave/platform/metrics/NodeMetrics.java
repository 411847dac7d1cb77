package dev.conclave.platform.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.PrometheusScrapingHandler;
import io.vertx.micrometer.VertxPrometheusOptions;

/** The node's one Prometheus registry: Vert.x, JVM and Conclave metrics, scraped at {@code /metrics}. */
public final class NodeMetrics {

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public VertxMetricsFactory vertxFactory() {
    return new MicrometerMetricsFactory(registry);
  }

  public MicrometerMetricsOptions vertxOptions() {
    return new MicrometerMetricsOptions()
      .setEnabled(true)
      .setJvmMetricsEnabled(true)
      // the event bus carries every committed ledger event to its followers: per message these
      // metrics look meters up by name and tags several times (sent, received, delivered, pending),
      // which cost the streaming gateway a measurable share of its CPU (BENCHMARKS.md); the gateway
      // counts what it persists and fans out itself (conclave_gateway_*)
      .addDisabledMetricsCategory(MetricsDomain.EVENT_BUS)
      .setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true));
  }

  public Handler<RoutingContext> scrapeHandler() {
    return PrometheusScrapingHandler.create(registry);
  }
}
