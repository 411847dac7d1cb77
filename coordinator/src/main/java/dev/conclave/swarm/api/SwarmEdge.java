package dev.conclave.swarm.api;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.bridge.BridgeTopic;
import dev.conclave.platform.server.EdgeContribution;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.platform.server.HttpCredentials;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.swarm.app.SwarmSettings;
import dev.conclave.swarm.metrics.SwarmMetrics;
import dev.conclave.swarm.protocol.DispatchBatcher;
import dev.conclave.swarm.protocol.ProtocolService;
import dev.conclave.swarm.security.AgentSecrets;
import dev.conclave.swarm.store.AgentStore;
import dev.conclave.swarm.store.ProtocolStore;
import dev.conclave.swarm.store.TaskStore;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.ext.web.Router;

import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the coordinator adds to the node's HTTP port: the protocol endpoints, task management and
 * operator endpoints, and HMAC-signed requests as credentials. Each edge instance gets its own
 * request batcher, confined to that instance's event loop.
 */
public final class SwarmEdge implements EdgeContribution {

  /** What the routes are built from. */
  public record Parts(Vertx vertx, SwarmSettings settings, Clock clock, AgentSecrets secrets, ProtocolStore protocol,
                      TaskStore tasks, AgentStore agents, HttpCredentials hmac, Runnable onStateChange,
                      SwarmMetrics metrics, Consumer<JsonArray> events, EdgeSecurity edge) {
  }

  private final Parts parts;

  public SwarmEdge(Parts parts) {
    this.parts = parts;
  }

  @Override
  public void bindHttp(Router router) {
    Context context = Vertx.currentContext() != null ? Vertx.currentContext() : parts.vertx().getOrCreateContext();
    SwarmSettings settings = parts.settings();
    DispatchBatcher batcher = new DispatchBatcher(context, parts.protocol(), parts.clock(), settings.batchMax(),
      settings.batchInFlight(), settings.queueMax(), parts.metrics(), parts.events());
    ProtocolService service = new ProtocolService(batcher, parts.secrets(), parts.metrics());
    HttpRoutes routes = new HttpRoutes(router, parts.edge(), Replies::problem);
    new ProtocolRoutes(service, parts.secrets(), settings).bind(routes);
    new TaskRoutes(parts.tasks(), settings, parts.clock(), parts.onStateChange()).bind(routes);
    new AgentRoutes(parts.agents(), parts.clock(), parts.onStateChange()).bind(routes);
  }

  @Override
  public List<BridgeTopic> bridgeTopics() {
    // every member may watch the swarm live; acting on it goes through the HTTP API's own rules
    return List.of(BridgeTopic.exact(Addresses.SWARM_EVENTS, Audience.MEMBERS));
  }

  @Override
  public List<HttpCredentials> httpCredentials() {
    return List.of(parts.hmac());
  }
}
