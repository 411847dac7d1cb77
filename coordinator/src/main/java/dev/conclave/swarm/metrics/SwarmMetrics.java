package dev.conclave.swarm.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The coordinator's metrics, named once: protocol requests by operation and outcome (ok or the error
 * code), the number of requests per database statement (batching at work), and items background jobs
 * changed.
 */
public final class SwarmMetrics {

  public static final String REQUESTS = "conclave_swarm_requests";
  public static final String BATCH_SIZE = "conclave_swarm_batch_size";
  public static final String JOB_CHANGES = "conclave_swarm_job_changes";

  private final MeterRegistry registry;
  private final DistributionSummary batchSize;

  public SwarmMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.batchSize = DistributionSummary.builder(BATCH_SIZE)
      .description("protocol requests sent to PostgreSQL in one statement").register(registry);
  }

  public void request(String operation, String outcome) {
    Counter.builder(REQUESTS).description("swarm protocol requests").tag("operation", operation).tag("outcome", outcome)
      .register(registry).increment();
  }

  public void batch(int size) {
    batchSize.record(size);
  }

  public void jobChanged(String job, int items) {
    Counter.builder(JOB_CHANGES).description("items swarm background jobs changed").tag("job", job)
      .register(registry).increment(items);
  }
}
