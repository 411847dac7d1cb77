package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.RegistrationError;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Shutdown;
import dev.conclave.gateway.sessions.SessionState.Phase;
import io.opentelemetry.api.trace.Span;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.server.GrpcServerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * One agent's {@code AgentStream}: registration first, then exactly one request in flight at a
 * time, every event checked against that request, persisted, and fanned out. It is the one owner of
 * the session's state ({@link SessionState}), on the context of the stream: anything from elsewhere
 * hops onto that context. Its parts read the state through {@link SessionView}, write to the agent
 * through {@link AgentLink}, and tell this class only what it must decide on (a request dispatched
 * or ended, the session failed, a command's {@link SessionCommands.Decision}).
 */
public final class AgentSession {

  private static final Logger LOG = LoggerFactory.getLogger(AgentSession.class);

  private final Caller caller;
  /** What this node's sessions share. */
  private final AgentSessions node;
  private final SessionLoop loop;
  /** The session's state, with this session its one owner: its parts read it, only this class changes it. */
  private final SessionState state = new SessionState();
  private final AgentLink link;
  private final EventWriter writer;
  private final Dispatcher dispatcher;
  private final Liveness liveness;
  private final SessionCommands commands;
  private final PackToolCalls toolCalls;

  /** Made by {@link AgentSessions#open}, which also makes this session's parts. */
  AgentSession(Caller caller, GrpcServerRequest<AgentMessage, ServerMessage> request, Context context, AgentSessions node) {
    this.caller = caller;
    this.node = node;
    this.loop = new SessionLoop(context);
    this.link = new AgentLink(request, node.vertx(), state, reason -> close(reason, Optional.empty()));
    this.dispatcher = node.dispatcher(state, link, state::inFlight, this::drained);
    this.writer = node.eventWriter(state, link, loop, this::requestEnded, this::fail, dispatcher::wake);
    this.liveness = node.liveness(state, link, this::fail);
    this.commands = node.commands(state, link, loop);
    this.toolCalls = node.toolCalls(state, link, loop);
  }

  /** Wires the stream; the agent has {@code registerTimeout} to send RegisterAgent. */
  public void start() {
    link.listen(node.edge(), this::onMessage, this::fail);
    if (node.sessions().draining()) {
      // a stopping node takes no new agents: they go to another node
      fail(GatewayErrors.nodeStopping());
      return;
    }
    state.unwatch(node.live().watch(caller, this::revoked));
    link.writeHead();
    long timeout = node.registerTimeout().toMillis();
    state.registerTimer(node.vertx().setTimer(timeout, t -> {
      if (state.phase() == Phase.AWAITING_REGISTER) {
        fail(GatewayErrors.registerTimeout(timeout / 1000));
      }
    }));
  }

  private void onMessage(AgentMessage message) {
    if (state.closed()) {
      return;
    }
    liveness.touch();
    if (state.phase() == Phase.AWAITING_REGISTER) {
      if (message.getPayloadCase() == AgentMessage.PayloadCase.REGISTER) {
        register(message);
      } else {
        fail(GatewayErrors.firstMessageNotRegister(payloadName(message)));
      }
      return;
    }
    InFlight flight = state.inFlight();
    switch (message.getPayloadCase()) {
      case REGISTER -> fail(GatewayErrors.alreadyRegistered());
      case RESPONSE -> {
        if (flight != null) {
          // the agent's events as events of the request's span: when each came, by kind
          flight.span().addEvent("agent." + message.getResponse().getEventCase().name().toLowerCase(Locale.ROOT));
          if (message.getResponse().hasToolApprovalRequest()) {
            flight.approvalWaitStarted(node.vertx(), message.getResponse().getToolApprovalRequest().getId());
          }
        }
        writer.accept(message.getResponse()).ifPresent(this::fail);
      }
      case HEARTBEAT -> {
        // liveness already refreshed
      }
      case INJECTION_ACK -> commands.onInjectionAck(message.getInjectionAck());
      case EXECUTE_PACK_TOOL -> toolCalls.execute(message.getExecutePackTool(), flight == null ? Span.getInvalid() : flight.span());
      default -> node.metrics().dropped(SessionMetrics.DropReason.UNKNOWN_MESSAGE, agentId(), "");
    }
  }

  private void register(AgentMessage message) {
    node.vertx().cancelTimer(state.registerTimer());
    state.moveTo(Phase.REGISTERING);
    link.pauseInbound();
    String requestedId = message.getRegister().getAgentId();
    node.registration().performInTurn(loop.context(), state::closed, caller, message.getRegister()).onComplete(ar -> {
      if (state.closed()) {
        // the stream went away while registering: undo the presence claim
        if (ar.succeeded()) {
          ar.result().registered().mcpToken().end();
          node.presence().release(ar.result().registered().presence());
        }
        return;
      }
      node.edge().audit(caller, "agent.register", "agent_id=" + requestedId, ar.failed() ? ar.cause() : null, link.remote());
      if (ar.failed()) {
        rejected(requestedId, ar.cause());
        return;
      }
      state.registered(ar.result().registered());
      node.sessions().put(agentId(), this).ifPresent(old -> old.superseded());
      ar.result().welcome().onComplete(welcome -> {
        if (!state.registered()) {
          return;
        }
        if (welcome.failed()) {
          fail(Failures.report(LOG, "agent welcome agent=" + agentId(), welcome.cause()));
          return;
        }
        link.send(welcome.result());
        node.metrics().registered();
        LOG.info("agent registered agent={} epoch={} principal={} node={} features={}", agentId(), epoch(),
          state.registration().principal().id(), node.nodeId(), state.registration().agent().features());
        link.resumeInbound();
        liveness.start();
        dispatcher.poll();
      });
    });
  }

  private void rejected(String requestedId, Throwable cause) {
    if (cause instanceof RegistrationRejected r) {
      LOG.info("agent registration refused agent={} principal={} reason={}", requestedId, caller.principalId(), r.status.getMessage());
      link.send(ServerMessage.newBuilder().setRegistrationError(RegistrationError.newBuilder()
        .setReason(r.status.detail()).setSuggestedId(r.suggestedId)).build());
      fail(r.status);
    } else {
      fail(Failures.report(LOG, "agent registration agent=" + requestedId, cause));
    }
  }

  // ---- what the node asks of this session (from any thread: each hops onto the session's context) ----

  /** A client's message for this agent (its statement), written with the agent's next dispatch when it is idle. */
  Future<Mailbox.Enqueued> acceptAndDispatch(Function<Optional<Mailbox.DispatchTo>, Future<Mailbox.Enqueued>> statement) {
    Promise<Mailbox.Enqueued> written = Promise.promise();
    // the dispatcher's state belongs to the session's event loop
    loop.run(() -> dispatcher.acceptAndDispatch(statement).onComplete(ar -> {
      if (ar.succeeded() && ar.result().firstSeq().isPresent() && ar.result().dispatched().isEmpty()) {
        // queued for this session but not handed over in its own statement (a dispatch query was running):
        // the session looks again itself, rather than only through the node's wake, which goes by the
        // agent's presence and, lost, leaves the request to the slow timer (TracedDispatchTest waited 10 s)
        loop.run(dispatcher::wake);
      }
      written.handle(ar);
    }));
    return written.future();
  }

  /** The presence entry this session holds, once registered. */
  public Optional<dev.conclave.gateway.presence.PresenceEntry> presence() {
    return state.presence();
  }

  /** Found stale by reconciliation: the agent registered again on another node. */
  public void supersededElsewhere() {
    superseded();
  }

  /** Graceful node stop: tell the agent to reconnect elsewhere; end once its request is done. */
  public Future<Void> drain(String reason) {
    Promise<Void> closed = Promise.promise();
    loop.run(() -> {
      state.draining(true);
      link.send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder().setReason(reason)).build());
      if (state.inFlight() == null && !dispatcher.polling()) {
        close("node stopping", Optional.of(GatewayErrors.nodeStopping()));
      }
      closed.complete();
    });
    return closed.future();
  }

  /** Ends the stream now; an in-flight request ends with a recoverable error. */
  public void forceClose(String reason) {
    loop.run(() -> close(reason, Optional.of(GatewayErrors.nodeStopping())));
  }

  /** A node command for this session; the session applies what the command decides, then replies. */
  public Future<JsonObject> command(JsonObject command) {
    Promise<JsonObject> reply = Promise.promise();
    loop.run(() -> commands.handle(command).map(decision -> {
      switch (decision.then()) {
        case WAKE -> dispatcher.wake();
        case RETIRE -> retire();
        case SUPERSEDE -> superseded();
        case NOTHING -> { }
      }
      return decision.reply();
    }).onComplete(reply));
    return reply.future();
  }

  // ---- what the parts report, and the changes of state only this session makes -------------------

  /** The in-flight request ended (its terminal event is stored, or it was discarded and the agent finished it). */
  private void requestEnded(InFlight flight) {
    if (state.inFlight() != flight) {
      return;
    }
    if (flight.cancelTimer() >= 0) {
      node.vertx().cancelTimer(flight.cancelTimer());
    }
    flight.endApprovalWaits("request_ended");
    flight.span().end();
    state.inFlight(null);
    if (state.retiring()) {
      finishRetirement();
    } else if (state.draining()) {
      close("drained", Optional.of(GatewayErrors.nodeStopping()));
    } else {
      dispatcher.requestEnded();
    }
  }

  /** Draining, nothing in flight, no dispatch pending: the hand-over is complete. */
  private void drained() {
    close("node stopping", Optional.of(GatewayErrors.nodeStopping()));
  }

  /** A newer session of the same agent registered. */
  void superseded() {
    loop.run(() -> {
      link.send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder()
        .setReason("superseded: the same agent registered again on a newer connection")).build());
      close("superseded by a newer connection", Optional.of(GatewayErrors.superseded()));
    });
  }

  /** The agent is Retiring: it finishes the request in flight (if any), then gets Shutdown and is Retired. */
  private void retire() {
    if (state.retiring() || !state.registered()) {
      return;
    }
    state.retiring(true);
    LOG.info("agent retiring agent={} inFlight={}", agentId(), state.inFlight() == null ? "none" : state.inFlight().id());
    if (state.inFlight() == null) {
      finishRetirement();
    }
  }

  private void finishRetirement() {
    String agent = agentId();
    link.send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder()
      .setReason("retired: an operator retired this agent; it must not reconnect")).build());
    node.lifecycle().retired(agent, "the request in flight finished").onComplete(ar -> loop.run(() -> {
      if (ar.failed()) {
        LOG.error("could not record an agent's retirement agent={}", agent, ar.cause());
      }
      close("retired", Optional.of(GatewayErrors.agentRetired(agent)));
    }));
  }

  /** The caller's credentials were revoked: the agent is told to stop, then the stream ends. */
  private void revoked(String reason) {
    if (state.closed()) {
      return;
    }
    LOG.warn("agent stream closed: credentials revoked agent={} principal={} reason={}", agentId(), caller.principalId(), reason);
    link.send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder().setReason("credentials revoked: " + reason)).build());
    fail(AuthErrors.credentialsRevoked(reason));
  }

  /** Ends the stream with a status naming what went wrong. */
  private void fail(ConclaveException error) {
    close(error.code() + ": " + error.detail(), Optional.of(error));
  }

  private void close(String reason, Optional<ConclaveException> status) {
    if (state.closed()) {
      return;
    }
    Phase was = state.moveTo(Phase.CLOSED);
    state.unwatch().run();
    node.vertx().cancelTimer(state.registerTimer());
    liveness.stop();
    Future<Void> dispatchSettled = dispatcher.stop();
    InFlight flight = state.inFlight();
    if (flight != null) {
      // the request goes on elsewhere (requeued, or ended by the sweep): its span here ends now
      flight.span().addEvent("agent.disconnected");
      flight.endApprovalWaits("agent_disconnected");
      flight.span().end();
    }
    link.end(status);
    Registration.Registered registered = state.registration();
    if (was == Phase.REGISTERED || was == Phase.REGISTERING && registered != null) {
      LOG.info("agent disconnected agent={} epoch={} node={} reason={}", agentId(), epoch(), node.nodeId(), reason);
      node.edge().lifecycle(caller, "agent.disconnect", "agent_id=" + agentId(), reason, link.remote());
      // after any dispatch query still running has settled, so a request it took goes back to the
      // queue instead of ending as an error it never earned; the session leaves the node's table
      // only when all of this is done, so a draining node waits for it before closing its pool
      // the MCP token ends first: once the agent is gone from presence, its token is refused everywhere
      Future.join(registered.mcpToken().end().transform(ended -> node.presence().release(registered.presence())),
          dispatchSettled.compose(v -> node.terminations().sessionClosed(agentId(), epoch())))
        .onFailure(err -> LOG.error("could not finish closing a session agent={}", agentId(), err))
        .onComplete(ar -> node.sessions().remove(agentId(), this));
    } else {
      LOG.info("agent stream closed before registration principal={} reason={}", caller.principalId(), reason);
    }
  }

  // ---- accessors --------------------------------------------------------------------------------

  public String agentId() {
    return state.agentId();
  }

  public long epoch() {
    return state.epoch();
  }

  /** Registered and not closing. */
  public boolean isOpen() {
    return state.registered();
  }

  private static String payloadName(AgentMessage m) {
    return m.getPayloadCase() == AgentMessage.PayloadCase.PAYLOAD_NOT_SET ? "nothing" : m.getPayloadCase().name().toLowerCase();
  }
}
