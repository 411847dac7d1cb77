package dev.conclave.platform.runtime;

import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;

/**
 * Starts the node's roles side by side (issue 45). A role's start is mostly the calling thread's
 * work (loading its classes, building its composition root) before it deploys its verticle, and no
 * role needs another to have started: each talks to the others over the event bus when a call comes,
 * not at start. So each role starts on a thread of its own; the node waits for all of them, and gets
 * them back in the order of {@code modules} (the edge binds their routes in that order, as before).
 */
final class RoleStarts {

  private static final Logger LOG = LoggerFactory.getLogger(RoleStarts.class);

  private RoleStarts() {
  }

  /**
   * Starts every module with {@code start} (which blocks until the role runs, or throws) and waits
   * for all of them. When any fails, it still waits for the others (Vert.x closes after this, with
   * nothing half-built beside it), then throws the failure of the first failing module in order.
   */
  static List<RunningRole> startAll(List<RoleModule> modules, BiFunction<Future<RunningRole>, String, RunningRole> await,
                                    NodeContext context) {
    List<CompletableFuture<RunningRole>> starts = new ArrayList<>();
    for (RoleModule module : modules) {
      CompletableFuture<RunningRole> start = new CompletableFuture<>();
      Thread thread = new Thread(() -> {
        try {
          long t0 = System.nanoTime();
          RunningRole role = await.apply(module.start(context), "start role " + module.role());
          LOG.info("role {}: started took={}ms", module.role(), (System.nanoTime() - t0) / 1_000_000);
          start.complete(role);
        } catch (Throwable e) {
          start.completeExceptionally(e);
        }
      }, "conclave-start-" + module.role());
      thread.setDaemon(true);
      thread.start();
      starts.add(start);
    }
    CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
    List<RunningRole> running = new ArrayList<>();
    for (CompletableFuture<RunningRole> start : starts) {
      try {
        running.add(start.join());
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException failure) {
          throw failure;
        }
        if (e.getCause() instanceof Error error) {
          throw error;
        }
        throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
      }
    }
    return running;
  }
}
