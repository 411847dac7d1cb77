package dev.conclave.agentruntime.swarm;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The file leases of one task (ACQUIRE_LEASE), taken by the tool gate before a call that writes a
 * file runs. A file another agent holds makes the call wait, polling every {@value #POLL_MS} ms, up to
 * the lease wait for the whole call; then the call is refused with a message that names the holder.
 * A lease lasts until the task's deadline (at most the protocol's hour) and is renewed from the busy
 * heartbeat when less than {@link #RENEW_BEFORE} is left. The coordinator releases a task's leases
 * when it completes or fails, so nothing is released here.
 */
final class TaskLeases {

  private static final Logger LOG = LoggerFactory.getLogger(TaskLeases.class);
  static final long POLL_MS = 2_000;
  static final Duration MAX_LEASE = Duration.ofHours(1);
  static final Duration RENEW_BEFORE = Duration.ofMinutes(10);

  private final Vertx vertx;
  private final SwarmClient client;
  private final String agentId;
  private final String taskId;
  private final Instant deadline;
  private final Duration wait;
  private final Clock clock;
  private final Map<String, Instant> held = new HashMap<>();
  private volatile boolean closed;

  TaskLeases(Vertx vertx, SwarmClient client, String agentId, String taskId, Instant deadline, Duration wait, Clock clock) {
    this.vertx = vertx;
    this.client = client;
    this.agentId = agentId;
    this.taskId = taskId;
    this.deadline = deadline;
    this.wait = wait;
    this.clock = clock;
  }

  /** Takes every file in {@code paths}, one after another; empty when all are held, else why not. */
  Future<Optional<String>> acquire(List<String> paths) {
    long until = System.nanoTime() + wait.toNanos();
    Future<Optional<String>> chain = Future.succeededFuture(Optional.empty());
    for (String path : paths) {
      chain = chain.compose(refused -> refused.isPresent() ? Future.succeededFuture(refused) : acquire(path, until, 0));
    }
    return chain;
  }

  /** The files held now. */
  synchronized List<String> held() {
    return List.copyOf(held.keySet());
  }

  /** Renews the leases that run out within {@link #RENEW_BEFORE}. */
  Future<Void> renew() {
    Instant soon = clock.instant().plus(RENEW_BEFORE);
    List<String> due;
    synchronized (this) {
      due = held.entrySet().stream().filter(e -> e.getValue().isBefore(soon)).map(Map.Entry::getKey).toList();
    }
    Future<Void> chain = Future.succeededFuture();
    for (String path : due) {
      chain = chain.compose(v -> client.acquireLease(agentId, taskId, path, duration())
        .onSuccess(answer -> record(path, answer)).<Void>mapEmpty().recover(err -> Future.succeededFuture()));
    }
    return chain;
  }

  /** The task ended: waiting calls give up. */
  void close() {
    closed = true;
  }

  private Future<Optional<String>> acquire(String path, long until, int attempt) {
    synchronized (this) {
      Instant expires = held.get(path);
      if (expires != null && expires.isAfter(clock.instant().plus(Duration.ofMinutes(1)))) {
        return Future.succeededFuture(Optional.empty());
      }
    }
    if (closed) {
      return Future.succeededFuture(Optional.of("the task ended before " + path + " could be leased"));
    }
    return client.acquireLease(agentId, taskId, path, duration()).transform(ar -> {
      if (ar.succeeded() && ar.result().getBoolean("success", false)) {
        record(path, ar.result());
        LOG.info("lease acquired task={} file={}", taskId, path);
        return Future.succeededFuture(Optional.empty());
      }
      String holder;
      if (ar.succeeded()) {
        holder = "agent " + ar.result().getString("heldBy", "?") + " until " + ar.result().getString("heldUntil", "?");
      } else if (ar.cause() instanceof SwarmCallException e && e.transientFailure()) {
        holder = "an unreachable coordinator (" + e.getMessage() + ")";
      } else {
        return Future.succeededFuture(Optional.of("denied: the coordinator refused a lease on " + path + " for task " + taskId
          + ": " + ar.cause().getMessage()));
      }
      if (closed || System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_MS) > until) {
        return Future.succeededFuture(Optional.of("denied: " + path + " is leased by " + holder + "; waited " + wait.toSeconds()
          + " s for it. Another task is changing this file: leave it alone or finish without it."));
      }
      if (attempt == 0) {
        LOG.info("lease wait task={} file={} held by {}", taskId, path, holder);
      }
      return vertx.timer(POLL_MS, TimeUnit.MILLISECONDS).compose(t -> acquire(path, until, attempt + 1));
    });
  }

  private synchronized void record(String path, JsonObject answer) {
    JsonObject lease = answer.getJsonObject("lease", new JsonObject());
    Instant expires;
    try {
      expires = Instant.parse(lease.getString("expiresAt", ""));
    } catch (DateTimeParseException e) {
      expires = clock.instant().plus(duration());
    }
    held.put(path, expires);
  }

  /** Until the task's deadline and a minute more, within the protocol's cap. */
  private Duration duration() {
    Duration left = Duration.between(clock.instant(), deadline).plusMinutes(1);
    if (left.compareTo(Duration.ofMinutes(1)) < 0) {
      return Duration.ofMinutes(1);
    }
    return left.compareTo(MAX_LEASE) > 0 ? MAX_LEASE : left;
  }
}
