package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.secrets.Secrets;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServerRequest;

import java.time.Clock;

/**
 * Makes this node's agent sessions: an {@link AgentSession} per {@code AgentStream} call, and the parts
 * each session is made of. It holds what a node's sessions share, and gives every session and every
 * part only the collaborators that one works with. One per node.
 */
public final class AgentSessions {

  private final Vertx vertx;
  private final String nodeId;
  private final GatewaySettings settings;
  private final SessionStores stores;
  private final SessionMetrics metrics;
  private final EdgeSecurity edge;
  private final LiveCredentials live;
  private final PackTools packTools;
  private final Clock clock;
  private final LocalSessions sessions;
  private final Presence presence;
  private final AgentRouter router;
  private final Terminations terminations;
  private final Lifecycle lifecycle;
  private final Registration registration;

  public AgentSessions(Vertx vertx, String nodeId, GatewaySettings settings, SessionStores stores, SessionMetrics metrics,
                       EdgeSecurity edge, TokenService tokens, Secrets secrets, PackTools packTools, Clock clock, LocalSessions sessions,
                       Presence presence, AgentRouter router, Terminations terminations, Lifecycle lifecycle) {
    this.vertx = vertx;
    this.nodeId = nodeId;
    this.settings = settings;
    this.stores = stores;
    this.metrics = metrics;
    this.edge = edge;
    this.live = tokens.live();
    this.packTools = packTools;
    this.clock = clock;
    this.sessions = sessions;
    this.presence = presence;
    this.router = router;
    this.terminations = terminations;
    this.lifecycle = lifecycle;
    Welcomes welcomes = new Welcomes(tokens, packTools, secrets, nodeId, settings.mcpEndpoint());
    this.registration = new Registration(stores.principals(), stores.agents(), lifecycle, presence, router, terminations, sessions,
      welcomes, nodeId, clock, edge.liveAccess(),
      new RegistrationGate(settings.registrationsInFlight(), settings.registrationsQueued(), metrics));
  }

  /** The session of one {@code AgentStream} call on {@code context}; {@link AgentSession#start} wires it. */
  public AgentSession open(Caller caller, GrpcServerRequest<AgentMessage, ServerMessage> request, Context context) {
    return new AgentSession(caller, request, context, this, vertx, nodeId, settings.registerTimeout(), edge, live, metrics,
      registration, sessions, presence, terminations, lifecycle);
  }

  // ---- the parts of a session, made as the session is constructed --------------------------------

  EventWriter eventWriter(AgentSession session) {
    return new EventWriter(session, vertx, stores.ledgerWriter(), stores.requests(), stores.usage(), stores.approvals(), metrics, terminations);
  }

  Dispatcher dispatcher(AgentSession session) {
    return new Dispatcher(session, vertx, stores.requests(), stores.ledgerWriter(), router, nodeId, settings.idleRedispatch(), metrics);
  }

  Liveness liveness(AgentSession session) {
    return new Liveness(session, vertx, settings.heartbeatTimeout(), settings.pingInterval());
  }

  SessionCommands commands(AgentSession session) {
    return new SessionCommands(session, vertx, settings.cancelGrace(), terminations, stores.injections());
  }

  ResponseIntake intake(AgentSession session, EventWriter writer) {
    return new ResponseIntake(session, writer, stores.ledger(), clock, metrics);
  }

  PackToolCalls toolCalls(AgentSession session) {
    return new PackToolCalls(session, packTools, metrics);
  }
}
