package dev.conclave.swarm.metrics;

import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The coordinator's metrics (named in platform's MetricNames): protocol requests by operation and
 * outcome (ok or the error code), the number of requests per database statement (batching at work),
 * and items background jobs changed.
 */
public final class SwarmMetrics {

  private final MeterRegistry registry;
  private final DistributionSummary batchSize;

  public SwarmMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.batchSize = DistributionSummary.builder(MetricNames.SWARM_BATCH_SIZE)
      .description("protocol requests sent to PostgreSQL in one statement").register(registry);
  }

  public void request(String operation, String outcome) {
    counter(operation, outcome).increment();
  }

  /**
   * Registers {@code operation}'s ok counter at 0, so that the dashboards' and alert rules' rates over
   * it exist before the first request (k8s/monitoring/).
   */
  public void declare(String operation) {
    counter(operation, "ok");
  }

  private Counter counter(String operation, String outcome) {
    // (looked up once per operation and outcome: every protocol request counts here)
    return requests.computeIfAbsent(operation + '|' + outcome, k -> Counter.builder(MetricNames.SWARM_REQUESTS)
      .description("swarm protocol requests").tag("operation", operation).tag("outcome", outcome).register(registry));
  }

  private final java.util.Map<String, Counter> requests = new java.util.concurrent.ConcurrentHashMap<>();

  public void batch(int size) {
    batchSize.record(size);
  }

  public void jobChanged(String job, int items) {
    Counter.builder(MetricNames.SWARM_JOB_CHANGES).description("items swarm background jobs changed").tag("job", job)
      .register(registry).increment(items);
  }
}
