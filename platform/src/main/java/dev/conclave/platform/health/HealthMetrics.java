package dev.conclave.platform.health;

import dev.conclave.platform.cluster.ClusterMembership;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Vertx;
import io.vertx.ext.healthchecks.CheckResult;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The node's health as metrics, for the alert rules of k8s/monitoring/: whether it takes traffic
 * ({@code conclave_node_ready}), each readiness check's last result ({@code conclave_node_check_up},
 * run every {@value #PERIOD_MS} ms here, not at scrape time, since a check is asynchronous and a
 * scrape must not wait for the database) and the cluster's size as this node sees it.
 */
public final class HealthMetrics {

  static final long PERIOD_MS = 15_000;

  private HealthMetrics() {
  }

  /** Registers the gauges and starts the periodic checks (they end with {@code vertx}). */
  public static void register(Vertx vertx, NodeHealth health, ClusterMembership membership, MeterRegistry registry) {
    Readiness readiness = health.readiness();
    Gauge.builder(MetricNames.NODE_READY, readiness, r -> r.ready() ? 1 : 0)
      .description("1 when this node takes traffic").register(registry);
    Gauge.builder(MetricNames.CLUSTER_MEMBERS, membership, m -> m.members().size())
      .description("cluster members this node sees, itself included").register(registry);
    Map<String, AtomicInteger> up = new ConcurrentHashMap<>();
    vertx.setPeriodic(1, PERIOD_MS, id -> health.results().onSuccess(result -> {
      for (CheckResult check : result.getChecks()) {
        up.computeIfAbsent(check.getId(), name -> registry.gauge(MetricNames.NODE_CHECK_UP, Tags.of("check", name), new AtomicInteger()))
          .set(check.getUp() ? 1 : 0);
      }
    }));
  }
}
