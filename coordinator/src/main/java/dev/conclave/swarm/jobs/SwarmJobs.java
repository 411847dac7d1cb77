package dev.conclave.swarm.jobs;

import dev.conclave.swarm.metrics.SwarmMetrics;
import dev.conclave.swarm.store.JobStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * The coordinator's background jobs, run on every node every interval: the retry scheduler
 * (pending_retry tasks whose backoff passed become ready), the stale-agent reaper (no heartbeat for
 * 2 minutes: offline, tasks failed as agent_crash, leases released), the lease sweeper, message
 * expiry, due schedules (ScheduleTicker: each slot's task, once across the cluster), and once a minute the forgetting of old rate-limit windows and replay signatures. Each job
 * is one statement that locks what it changes and skips what another node holds, and changes state
 * conditionally, so two nodes never handle the same item. "Now" comes from the injected clock.
 */
public final class SwarmJobs {

  private static final Logger LOG = LoggerFactory.getLogger(SwarmJobs.class);
  private static final Duration HOUSEKEEPING_EVERY = Duration.ofMinutes(1);

  private record Job(String name, Function<Instant, Future<Integer>> run) {
  }

  private final Vertx vertx;
  private final Clock clock;
  private final Duration interval;
  private final Runnable onChange;
  private final SwarmMetrics metrics;
  private final List<Job> jobs;
  private final Job housekeeping;
  private long timer = -1;
  private boolean running;
  private Instant lastHousekeeping;

  public SwarmJobs(Vertx vertx, JobStore store, Clock clock, Duration interval, Duration messageRetention, Runnable onChange,
                   SwarmMetrics metrics, Function<Instant, Future<Integer>> schedules) {
    this.vertx = vertx;
    this.metrics = metrics;
    this.clock = clock;
    this.interval = interval;
    this.onChange = onChange;
    this.jobs = List.of(
      new Job("retry-scheduler", now -> store.releaseDueRetries(now, 500)),
      new Job("stale-agent-reaper", now -> store.reapStaleAgents(now, 100)),
      new Job("lease-sweeper", now -> store.sweepExpiredLeases(now, 500)),
      new Job("message-expiry", now -> store.expireMessages(now, messageRetention, 500)),
      new Job("schedules", schedules));
    this.housekeeping = new Job("housekeeping", store::housekeeping);
  }

  public void start() {
    timer = vertx.setPeriodic(interval.toMillis(), id -> tick());
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  private void tick() {
    if (running) {
      return;
    }
    running = true;
    Future<Integer> chain = Future.succeededFuture(0);
    for (Job job : jobs) {
      chain = chain.compose(done -> run(job).map(n -> done + n));
    }
    Instant now = clock.instant();
    if (lastHousekeeping == null || now.isBefore(lastHousekeeping)
      || Duration.between(lastHousekeeping, now).compareTo(HOUSEKEEPING_EVERY) >= 0) {
      lastHousekeeping = now;
      chain = chain.compose(done -> run(housekeeping).map(n -> done));
    }
    chain.onComplete(ar -> {
      running = false;
      if (ar.succeeded() && ar.result() > 0) {
        onChange.run();
      }
    });
  }

  private Future<Integer> run(Job job) {
    return job.run().apply(clock.instant())
      .onSuccess(n -> {
        if (n > 0) {
          metrics.jobChanged(job.name(), n);
          LOG.info("swarm job={} changed={}", job.name(), n);
        }
      })
      .recover(err -> {
        LOG.warn("swarm job={} failed error={}", job.name(), err.getMessage());
        return Future.succeededFuture(0);
      });
  }
}
