package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.secrets.Secrets;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServerRequest;

import java.time.Clock;
import java.util.function.Consumer;

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
    return new AgentSession(caller, request, context, this);
  }

  // ---- what a node's sessions share, for the session itself -------------------------------------

  Vertx vertx() {
    return vertx;
  }

  String nodeId() {
    return nodeId;
  }

  java.time.Duration registerTimeout() {
    return settings.registerTimeout();
  }

  EdgeSecurity edge() {
    return edge;
  }

  LiveCredentials live() {
    return live;
  }

  SessionMetrics metrics() {
    return metrics;
  }

  Registration registration() {
    return registration;
  }

  LocalSessions sessions() {
    return sessions;
  }

  Presence presence() {
    return presence;
  }

  Terminations terminations() {
    return terminations;
  }

  Lifecycle lifecycle() {
    return lifecycle;
  }

  // ---- the parts of a session, made as the session is constructed: each gets the session's state
  // ---- read-only, the stream if it writes to the agent, and only what it tells the session

  Dispatcher dispatcher(SessionView state, AgentLink link, Consumer<InFlight> dispatched, Runnable drained) {
    return new Dispatcher(state, link, dispatched, drained, vertx, stores.requests(), stores.ledgerWriter(), router, nodeId,
      settings.idleRedispatch(), metrics);
  }

  EventWriter eventWriter(SessionView state, AgentLink link, SessionLoop loop, Consumer<InFlight> ended,
                          Consumer<ConclaveException> failed, Runnable wake) {
    return new EventWriter(state, link, loop, ended, failed, wake, vertx, stores.ledgerWriter(), stores.ledger(),
      new EventDetails(stores.usage(), stores.approvals()), clock, metrics, terminations);
  }

  Liveness liveness(SessionView state, AgentLink link, Consumer<ConclaveException> dead) {
    return new Liveness(state, link, dead, vertx, settings.heartbeatTimeout(), settings.pingInterval());
  }

  SessionCommands commands(SessionView state, AgentLink link, SessionLoop loop) {
    return new SessionCommands(state, link, loop, vertx, settings.cancelGrace(), terminations, stores.injections());
  }

  PackToolCalls toolCalls(SessionView state, AgentLink link, SessionLoop loop) {
    return new PackToolCalls(state, link, loop, vertx, packTools, metrics);
  }
}
