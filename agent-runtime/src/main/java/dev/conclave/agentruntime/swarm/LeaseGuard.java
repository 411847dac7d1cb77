package dev.conclave.agentruntime.swarm;

import dev.conclave.agentruntime.gate.WriteGuard;
import io.vertx.core.Future;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The tool gate's guard while the agent works the swarm: before a call of the task in hand that
 * writes files ({@link WritePaths}) runs, the task holds an ACQUIRE_LEASE on each of them
 * ({@link TaskLeases}), waiting up to {@code --lease-wait} for a file another agent holds. Calls
 * outside a task (the agent's other conversations) take no lease.
 */
final class LeaseGuard implements WriteGuard {

  /** Beyond the lease wait, for the calls themselves. */
  private static final Duration MARGIN = Duration.ofSeconds(30);

  private final SwarmWorker worker;
  private final Path workdir;
  private final Duration wait;

  LeaseGuard(SwarmWorker worker, Path workdir, Duration wait) {
    this.worker = worker;
    this.workdir = workdir;
    this.wait = wait;
  }

  @Override
  public Future<Optional<String>> beforeRun(String toolId, String tool, String inputJson) {
    TaskRun run = worker.current();
    if (run == null || !run.working()) {
      return Future.succeededFuture(Optional.empty());
    }
    List<String> paths = WritePaths.of(tool, inputJson, workdir);
    if (paths.isEmpty()) {
      return Future.succeededFuture(Optional.empty());
    }
    return run.leases().acquire(paths).map(refusal -> {
      refusal.ifPresent(reason -> run.leaseRefused(toolId, reason));
      return refusal;
    });
  }

  @Override
  public Duration maxWait() {
    return wait.plus(MARGIN);
  }
}
