package dev.conclave.agent.backend;

import io.vertx.core.Future;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A backend whose runs are scripted by the test, recording how it was driven. */
final class ScriptedBackend implements AgentBackend {

  @FunctionalInterface
  interface Run {
    Future<BackendResponse> run(String prompt, BackendSession session, BackendCallbacks callbacks);
  }

  final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
  final List<BackendSession> executed = new CopyOnWriteArrayList<>();
  final List<Long> executedAtNanos = new CopyOnWriteArrayList<>();
  final List<BackendSession> cancelled = new CopyOnWriteArrayList<>();
  final AtomicInteger shutdowns = new AtomicInteger();

  ScriptedBackend then(Run run) {
    runs.add(run);
    return this;
  }

  @Override
  public Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks) {
    executed.add(session);
    executedAtNanos.add(System.nanoTime());
    Run next = runs.poll();
    if (next == null) {
      return Future.failedFuture(new IllegalStateException("no scripted run left"));
    }
    return next.run(prompt, session, callbacks);
  }

  @Override
  public Future<Void> cancel(BackendSession session) {
    cancelled.add(session);
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> shutdown() {
    shutdowns.incrementAndGet();
    return Future.succeededFuture();
  }
}
