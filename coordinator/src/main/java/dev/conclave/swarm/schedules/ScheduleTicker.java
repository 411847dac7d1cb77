package dev.conclave.swarm.schedules;

import dev.conclave.swarm.errors.SwarmProblem;
import dev.conclave.swarm.store.ScheduleStore;
import dev.conclave.swarm.store.ScheduleStore.Due;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Fires due schedules, run by the background jobs of every coordinator node each interval. Each
 * schedule fires in a transaction of its own that locks its row (skipping rows another node holds),
 * makes the slot's task with the uniqueKey {@code schedule:<name>:<slot>} and moves next_run_at on,
 * so a slot fires once across the cluster. Catch-up: of the slots that passed while no node ran,
 * only the latest fires; the others are counted in missedRuns.
 */
public final class ScheduleTicker {

  private static final Logger LOG = LoggerFactory.getLogger(ScheduleTicker.class);
  /** Schedules (or walk steps through a long downtime) one tick handles at most; the next tick goes on. */
  static final int PER_TICK = 100;
  /** Each statement of a tick's transaction stops after this long. */
  static final Duration BOUND = Duration.ofSeconds(5);

  static final Duration TICK_BOUND = Duration.ofSeconds(30);

  private enum Outcome { FIRED, MOVED }

  private final ScheduleStore store;
  private final int defaultMaxRetries;

  public ScheduleTicker(ScheduleStore store, int defaultMaxRetries) {
    this.store = store;
    this.defaultMaxRetries = defaultMaxRetries;
  }

  /** Fires what is due at {@code now}; the number of tasks made. */
  public Future<Integer> fireDue(Instant now) {
    // the statements are bounded; this bounds the tick as a whole (a connection that never comes)
    return next(now, 0, 0).timeout(TICK_BOUND.toMillis(), TimeUnit.MILLISECONDS);
  }

  private Future<Integer> next(Instant now, int handled, int fired) {
    if (handled >= PER_TICK) {
      return Future.succeededFuture(fired);
    }
    Due[] locked = new Due[1];
    ScheduleRule.Step[] planned = new ScheduleRule.Step[1];
    return store.withDue(now, BOUND, (conn, due) -> {
      locked[0] = due;
      ScheduleRule.Step step = ScheduleRule.of(due.cron(), due.every(), due.timezone()).step(due.nextRunAt(), now);
      planned[0] = step;
      return handle(conn, due, step, now);
    })
      .recover(err -> {
        if (err instanceof SwarmProblem problem && locked[0] != null && planned[0] != null) {
          // the template no longer makes a task (the task rules changed under it): skip the slot, say why
          Due due = locked[0];
          LOG.warn("swarm schedule={} slot={} could not make its task error={}", due.name(), planned[0].fire(), problem.getMessage());
          return store.walk(due.name(), due.nextRunAt(), planned[0].nextRunAt(), planned[0].missed() + 1, problem.getMessage())
            .map(Optional.of(Outcome.MOVED));
        }
        return Future.failedFuture(err);
      })
      .compose(outcome -> outcome.isEmpty()
        ? Future.succeededFuture(fired)
        : next(now, handled + 1, fired + (outcome.get() == Outcome.FIRED ? 1 : 0)));
  }

  private Future<Outcome> handle(SqlConnection conn, Due due, ScheduleRule.Step step, Instant now) {
    if (step.fire() == null) {
      // a long downtime: walk on through the missed slots, a bounded number per step
      return store.walk(conn, due.name(), due.nextRunAt(), step.nextRunAt(), step.missed(), null).map(Outcome.MOVED);
    }
    return store.fire(conn, due, step.fire(), step.missed(), step.nextRunAt(), now, defaultMaxRetries).map(fired -> {
      LOG.info("swarm schedule={} fired slot={} task={} missed={}{}", due.name(), step.fire(), fired.taskId(), step.missed(),
        fired.existing() ? " (its task existed already)" : "");
      return fired.existing() ? Outcome.MOVED : Outcome.FIRED;
    });
  }
}
