package dev.conclave.swarm.api;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.bridge.BridgeTopic;
import dev.conclave.platform.server.EdgeContribution;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.platform.server.HttpCredentials;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.swarm.config.SwarmSettings;
import dev.conclave.swarm.conversations.TaskConversations;
import dev.conclave.swarm.protocol.ProtocolServices;
import dev.conclave.swarm.security.AgentSecrets;
import dev.conclave.swarm.store.AgentStore;
import dev.conclave.swarm.store.ScheduleStore;
import dev.conclave.swarm.store.TaskStore;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;

import java.time.Clock;
import java.util.List;

/**
 * What the coordinator adds to the node's HTTP port: the protocol endpoints, task management and
 * operator endpoints, schedules, a task's conversation in the gateway, and HMAC-signed requests as credentials. Each edge instance gets its own
 * protocol service (its own request batcher), confined to that instance's event loop.
 */
public final class SwarmEdge implements EdgeContribution {

  private final Vertx vertx;
  private final ProtocolServices services;
  private final AgentSecrets secrets;
  private final SwarmSettings settings;
  private final TaskRoutes tasks;
  private final ScheduleRoutes schedules;
  private final AgentRoutes agents;
  private final ConversationRoutes conversations;
  private final HttpCredentials hmac;
  private final EdgeSecurity edge;

  /** {@code onStateChange}: run after an operator's change, so its events go out without waiting for a poll. */
  public SwarmEdge(Vertx vertx, ProtocolServices services, AgentSecrets secrets, SwarmSettings settings, Clock clock,
                   TaskStore tasks, ScheduleStore schedules, AgentStore agents, TaskConversations conversations, Runnable onStateChange,
                   HttpCredentials hmac, EdgeSecurity edge) {
    this.vertx = vertx;
    this.services = services;
    this.secrets = secrets;
    this.settings = settings;
    this.tasks = new TaskRoutes(tasks, settings, clock, onStateChange);
    this.schedules = new ScheduleRoutes(schedules, clock);
    this.agents = new AgentRoutes(agents, clock, onStateChange);
    this.conversations = new ConversationRoutes(conversations);
    this.hmac = hmac;
    this.edge = edge;
  }

  @Override
  public void bindHttp(Router router) {
    Context context = Vertx.currentContext() != null ? Vertx.currentContext() : vertx.getOrCreateContext();
    HttpRoutes routes = new HttpRoutes(router, edge, Replies::problem);
    new ProtocolRoutes(services.on(context), secrets, settings).bind(routes);
    tasks.bind(routes);
    schedules.bind(routes);
    agents.bind(routes);
    conversations.bind(routes);
  }

  @Override
  public List<BridgeTopic> bridgeTopics() {
    // every member may watch the swarm live; acting on it goes through the HTTP API's own rules
    return List.of(BridgeTopic.exact(Addresses.SWARM_EVENTS, Audience.MEMBERS));
  }

  @Override
  public List<HttpCredentials> httpCredentials() {
    return List.of(hmac);
  }
}
