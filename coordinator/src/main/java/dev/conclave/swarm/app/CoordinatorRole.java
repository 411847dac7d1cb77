package dev.conclave.swarm.app;

import dev.conclave.platform.auth.SigningKeys;
import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.swarm.store.SwarmSchema;
import dev.conclave.platform.runtime.NodeContext;
import dev.conclave.platform.runtime.RoleModule;
import dev.conclave.platform.runtime.RunningRole;
import dev.conclave.platform.server.EdgeContribution;
import dev.conclave.swarm.api.SwarmEdge;
import dev.conclave.swarm.events.EventRelay;
import dev.conclave.swarm.metrics.SwarmMetrics;
import dev.conclave.swarm.security.AgentSecrets;
import dev.conclave.swarm.security.HmacCredentials;
import dev.conclave.swarm.store.AgentStore;
import dev.conclave.swarm.store.EventStore;
import dev.conclave.swarm.store.ProtocolStore;
import dev.conclave.swarm.store.SignatureStore;
import dev.conclave.swarm.store.TaskStore;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;

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

  @Override
  public Future<RunningRole> start(NodeContext context) {
    SwarmSettings settings = SwarmSettings.from(context.config());
    Clock time = clock != null ? clock : context.clock();
    Pool pool = context.pool();
    AgentSecrets secrets = AgentSecrets.fromSigningSecret(SigningKeys.resolve(context.config()).rootSecret());
    EventRelay relay = new EventRelay(context.vertx(), new EventStore(pool));
    SwarmMetrics metrics = new SwarmMetrics(context.metrics());
    SwarmEdge edge = new SwarmEdge(new SwarmEdge.Parts(context.vertx(), settings, time, secrets, new ProtocolStore(pool),
      new TaskStore(pool), new AgentStore(pool),
      new HmacCredentials(new SignatureStore(pool), secrets, time, settings.hmacWindow()), relay::kick, metrics, relay::publish, context.edge()));
    CoordinatorVerticle background = new CoordinatorVerticle(settings, time, pool, secrets, relay, context.nodeId(), metrics);
    return context.vertx().deployVerticle(background).map(deployment -> {
      LOG.info("role coordinator: started node={} fileTransport={} rateLimits={}", context.nodeId(),
        settings.fileTransport() ? settings.fileDir() : "off", settings.rateLimits());
      return new RunningRole() {
        @Override
        public List<EdgeContribution> contributions() {
          return List.of(edge);
        }

        @Override
        public Future<Void> stop() {
          return context.vertx().undeploy(deployment);
        }
      };
    });
  }
}
