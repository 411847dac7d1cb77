package dev.conclave.swarm.app;

import dev.conclave.swarm.events.EventRelay;
import dev.conclave.swarm.files.FileTransport;
import dev.conclave.swarm.jobs.SwarmJobs;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The context the coordinator's work that is not request-driven runs on: event publishing,
 * background jobs and the file transport (made for this context, when it is on). Starts and stops
 * what {@link CoordinatorRole} built.
 */
final class CoordinatorVerticle extends VerticleBase {

  private final EventRelay relay;
  private final Duration eventPoll;
  private final SwarmJobs jobs;
  private final Optional<Function<Context, FileTransport>> fileTransport;
  private FileTransport files;

  CoordinatorVerticle(EventRelay relay, Duration eventPoll, SwarmJobs jobs, Optional<Function<Context, FileTransport>> fileTransport) {
    this.relay = relay;
    this.eventPoll = eventPoll;
    this.jobs = jobs;
    this.fileTransport = fileTransport;
  }

  @Override
  public Future<?> start() {
    relay.start(context, eventPoll);
    jobs.start();
    if (fileTransport.isEmpty()) {
      return Future.succeededFuture();
    }
    files = fileTransport.get().apply(context);
    return files.start();
  }

  @Override
  public Future<?> stop() {
    if (files != null) {
      files.stop();
    }
    jobs.stop();
    relay.stop();
    return Future.succeededFuture();
  }
}
