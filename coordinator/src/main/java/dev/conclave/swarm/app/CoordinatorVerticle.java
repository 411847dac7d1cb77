package dev.conclave.swarm.app;

import dev.conclave.swarm.events.EventRelay;
import dev.conclave.swarm.files.FileTransport;
import dev.conclave.swarm.jobs.SwarmJobs;
import dev.conclave.swarm.metrics.SwarmMetrics;
import dev.conclave.swarm.protocol.DispatchBatcher;
import dev.conclave.swarm.protocol.ProtocolService;
import dev.conclave.swarm.security.AgentSecrets;
import dev.conclave.swarm.store.JobStore;
import dev.conclave.swarm.store.ProtocolStore;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.sqlclient.Pool;

import java.time.Clock;

/** Runs the coordinator's work that is not request-driven: event publishing, background jobs, file transport. */
final class CoordinatorVerticle extends VerticleBase {

  private final SwarmSettings settings;
  private final Clock clock;
  private final Pool pool;
  private final AgentSecrets secrets;
  private final EventRelay relay;
  private final String nodeId;
  private final SwarmMetrics metrics;
  private SwarmJobs jobs;
  private FileTransport files;

  CoordinatorVerticle(SwarmSettings settings, Clock clock, Pool pool, AgentSecrets secrets, EventRelay relay, String nodeId,
                      SwarmMetrics metrics) {
    this.settings = settings;
    this.metrics = metrics;
    this.clock = clock;
    this.pool = pool;
    this.secrets = secrets;
    this.relay = relay;
    this.nodeId = nodeId;
  }

  @Override
  public Future<?> start() {
    relay.start(context, settings.eventPoll());
    jobs = new SwarmJobs(vertx, new JobStore(pool), clock, settings.jobInterval(), settings.messageRetention(), relay::kick,
      metrics);
    jobs.start();
    if (!settings.fileTransport()) {
      return Future.succeededFuture();
    }
    DispatchBatcher batcher = new DispatchBatcher(context, new ProtocolStore(pool), clock, settings.batchMax(),
      settings.batchInFlight(), settings.queueMax(), metrics, relay::publish);
    files = new FileTransport(vertx, settings.fileDir(), settings.filePoll(), settings.fileMaxBytes(),
      new ProtocolService(batcher, secrets, metrics), nodeId);
    return files.start();
  }

  @Override
  public Future<?> stop() {
    if (files != null) {
      files.stop();
    }
    if (jobs != null) {
      jobs.stop();
    }
    relay.stop();
    return Future.succeededFuture();
  }
}
