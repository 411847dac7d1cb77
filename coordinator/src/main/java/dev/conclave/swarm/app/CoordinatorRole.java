package dev.conclave.swarm.app;

import dev.conclave.platform.auth.SigningKeys;
import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.runtime.NodeContext;
import dev.conclave.platform.runtime.RoleModule;
import dev.conclave.platform.runtime.RunningRole;
import dev.conclave.platform.retention.RetentionSettings;
import dev.conclave.platform.retention.RetentionWorker;
import dev.conclave.swarm.store.TaskRetention;
import dev.conclave.platform.server.EdgeContribution;
import dev.conclave.swarm.api.SwarmEdge;
import dev.conclave.swarm.conversations.TaskConversations;
import dev.conclave.swarm.config.SwarmSettings;
import dev.conclave.swarm.events.EventRelay;
import dev.conclave.swarm.files.FileTransport;
import dev.conclave.swarm.jobs.SwarmJobs;
import dev.conclave.swarm.metrics.SwarmMetrics;
import dev.conclave.swarm.protocol.ProtocolServices;
import dev.conclave.swarm.security.AgentSecrets;
import dev.conclave.swarm.security.HmacCredentials;
import dev.conclave.swarm.store.AgentStore;
import dev.conclave.swarm.store.EventStore;
import dev.conclave.swarm.store.JobStore;
import dev.conclave.swarm.store.ProtocolStore;
import dev.conclave.swarm.store.ScheduleStore;
import dev.conclave.swarm.schedules.ScheduleTicker;
import dev.conclave.swarm.store.SignatureStore;
import dev.conclave.swarm.store.SwarmSchema;
import dev.conclave.swarm.store.TaskStore;
import dev.conclave.swarm.tracing.AttemptTraces;
import dev.conclave.swarm.tracing.ClaimSpans;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The coordinator role: the Jetpack agent protocol over HTTP, direct database access (the swarm
 * schema's functions) and request files, on PostgreSQL, safe to run on several nodes at once.
 */
public final class CoordinatorRole implements RoleModule {

  private static final Logger LOG = LoggerFactory.getLogger(CoordinatorRole.class);

  private final Clock clock;

  /** The role as the node loads it: time from the node's clock. */
  public CoordinatorRole() {
    this(null);
  }

  /** A role whose time-based rules follow {@code clock} (tests move it instead of sleeping). */
  public CoordinatorRole(Clock clock) {
    this.clock = clock;
  }

  @Override
  public RoleName role() {
    return RoleName.COORDINATOR;
  }

  @Override
  public List<SchemaMigration> migrations() {
    return List.of(SwarmSchema.MIGRATION);
  }

  /** The coordinator's one composition root: everything it runs is built here, and nowhere else. */
  @Override
  public Future<RunningRole> start(NodeContext context) {
    SwarmSettings settings = SwarmSettings.from(context.config());
    Clock time = clock != null ? clock : context.clock();
    Vertx vertx = context.vertx();
    Pool pool = context.pool();
    AgentSecrets secrets = AgentSecrets.fromSigningSecret(SigningKeys.resolve(context.config()).rootSecret());
    SwarmMetrics metrics = new SwarmMetrics(context.metrics());
    // with tracing off, nothing looks at the events published: no cost on the hot path
    AttemptTraces attempts = new AttemptTraces(context.tracing(), pool, context.nodeId());
    EventRelay relay = new EventRelay(vertx, new EventStore(pool), context.tracing().enabled() ? attempts::published : null);
    ProtocolServices services = new ProtocolServices(new ProtocolStore(pool), time, settings, metrics, relay::publish, secrets,
      new ClaimSpans(context.tracing(), context.nodeId()));
    ScheduleStore schedules = new ScheduleStore(pool);
    SwarmEdge edge = new SwarmEdge(vertx, services, secrets, settings, time, new TaskStore(pool), schedules, new AgentStore(pool),
      new TaskConversations(vertx, pool, time, relay::kick), relay::kick,
      new HmacCredentials(new SignatureStore(pool), secrets, time, settings.hmacWindow()), context.edge());
    SwarmJobs jobs = new SwarmJobs(vertx, new JobStore(pool), time, settings.jobInterval(), settings.messageRetention(), relay::kick,
      metrics, new ScheduleTicker(schedules, settings.defaultMaxRetries())::fireDue);
    Optional<Function<Context, FileTransport>> files = settings.fileTransport()
      ? Optional.of(on -> new FileTransport(vertx, settings.fileDir(), settings.filePoll(), settings.fileMaxBytes(), services.on(on),
          context.nodeId()))
      : Optional.empty();
    CoordinatorVerticle background = new CoordinatorVerticle(relay, settings.eventPoll(), jobs, files);
    RetentionWorker retention = new RetentionWorker(vertx, pool, "swarm",
      List.of(TaskRetention.rule(context.config().get(SwarmSettings.TASK_RETENTION))), RetentionSettings.from(context.config()),
      context.metrics());
    return context.vertx().deployVerticle(background).map(deployment -> {
      retention.start();
      LOG.info("role coordinator: started node={} fileTransport={} rateLimits={}", context.nodeId(),
        settings.fileTransport() ? settings.fileDir() : "off", settings.rateLimits());
      return new RunningRole() {
        @Override
        public List<EdgeContribution> contributions() {
          return List.of(edge);
        }

        @Override
        public Future<Void> stop() {
          retention.stop();
          return context.vertx().undeploy(deployment);
        }
      };
    });
  }
}
