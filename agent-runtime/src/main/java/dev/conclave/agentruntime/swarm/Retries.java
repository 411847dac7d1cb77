package dev.conclave.agentruntime.swarm;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The spec's retry for transient errors: up to {@code attempts} tries, waiting 1 s, 2 s, 4 s … in
 * between (or what a 429's {@code Retry-After} asks, when longer). Permanent errors fail at once.
 */
final class Retries {

  static final Duration BASE = Duration.ofSeconds(1);

  private Retries() {
  }

  static <T> Future<T> transientErrors(Vertx vertx, int attempts, Supplier<Future<T>> call) {
    return attempt(vertx, attempts, 0, call);
  }

  private static <T> Future<T> attempt(Vertx vertx, int attempts, int done, Supplier<Future<T>> call) {
    return call.get().recover(err -> {
      if (!(err instanceof SwarmCallException e) || !e.transientFailure() || done + 1 >= attempts) {
        return Future.failedFuture(err);
      }
      long wait = Math.max(BASE.toMillis() << done, e.retryAfter().map(Duration::toMillis).orElse(0L));
      return vertx.timer(Math.max(1, wait), TimeUnit.MILLISECONDS).compose(t -> attempt(vertx, attempts, done + 1, call));
    });
  }
}
