package dev.conclave.agentruntime.swarm;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * A task's progress as the protocol reports it (phase, percent, what is happening), derived from the
 * backend's events ({@link TaskRun}) and sent as PROGRESS at most once per interval: a change within
 * the interval waits for its end, and only the newest state goes. The percentage only grows. A
 * PROGRESS answered {@code continue: false} (the task was cancelled or given to another agent) is
 * handed to {@code onStop}.
 */
final class TaskProgress {

  /** The protocol's task phases. */
  enum Phase {
    ANALYZING("analyzing"), PLANNING("planning"), IMPLEMENTING("implementing"), TESTING("testing"), REVIEWING("reviewing");

    final String wire;

    Phase(String wire) {
      this.wire = wire;
    }
  }

  private final Vertx vertx;
  private final SwarmClient client;
  private final String agentId;
  private final String taskId;
  private final Duration interval;
  private final Consumer<String> onStop;
  private Phase phase = Phase.ANALYZING;
  private int percent;
  private String description = "claimed";
  private boolean dirty;
  private long lastSent = Long.MIN_VALUE / 2;
  private long timer = -1;
  private boolean closed;

  TaskProgress(Vertx vertx, SwarmClient client, String agentId, String taskId, Duration interval, Consumer<String> onStop) {
    this.vertx = vertx;
    this.client = client;
    this.agentId = agentId;
    this.taskId = taskId;
    this.interval = interval;
    this.onStop = onStop;
  }

  /** The task moved on: sent now, or when the interval since the last report is over. */
  synchronized void update(Phase phase, int percent, String description) {
    int p = Math.max(this.percent, Math.min(99, percent));
    if (closed || (phase == this.phase && p == this.percent && description.equals(this.description))) {
      return;
    }
    this.phase = phase;
    this.percent = p;
    this.description = description;
    this.dirty = true;
    long now = System.nanoTime();
    long due = lastSent + interval.toNanos();
    if (timer >= 0) {
      return;
    }
    if (now >= due) {
      send();
    } else {
      timer = vertx.setTimer(Math.max(1, (due - now) / 1_000_000), t -> {
        synchronized (this) {
          timer = -1;
          if (dirty && !closed) {
            send();
          }
        }
      });
    }
  }

  /** What the heartbeat carries: {@code {id, progress, phase}}. */
  synchronized JsonObject current() {
    return new JsonObject().put("id", taskId).put("progress", percent).put("phase", phase.wire);
  }

  synchronized Phase phase() {
    return phase;
  }

  synchronized void close() {
    closed = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void send() {
    dirty = false;
    lastSent = System.nanoTime();
    JsonObject body = new JsonObject().put("phase", phase.wire).put("percentComplete", percent).put("description", description);
    client.progress(agentId, taskId, body).onSuccess(answer -> {
      if (!answer.getBoolean("continue", true)) {
        onStop.accept(answer.getString("reason", "the coordinator said to stop") + " (task " + answer.getString("status", "?") + ")");
      }
    });
  }
}
