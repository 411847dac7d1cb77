package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.mailbox.Handoff;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CovenControlGrpcService;
import dev.conclave.proto.coven.RegistrationError;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Shutdown;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * One agent's {@code AgentStream}: registration first, then exactly one request in flight at a
 * time, every event checked against that request, persisted, and fanned out. All of its state is
 * owned by the context of the stream; anything from elsewhere hops onto that context.
 */
public final class AgentSession {

  private static final Logger LOG = LoggerFactory.getLogger(AgentSession.class);

  /** How long the stream's end waits for earlier writes the agent has not taken; then the stream is reset. */
  static final long END_AFTER_WRITES_MS = 10_000;

  enum State { AWAITING_REGISTER, REGISTERING, REGISTERED, CLOSED }

  private final Caller caller;
  private final GrpcServerRequest<AgentMessage, ServerMessage> request;
  private final GrpcServerResponse<AgentMessage, ServerMessage> response;
  private final Context context;
  private final Vertx vertx;
  private final String nodeId;
  private final Duration registerTimeout;
  private final EdgeSecurity edge;
  private final LiveCredentials live;
  private final SessionMetrics metrics;
  private final Registration registration;
  private final LocalSessions sessions;
  private final Presence presence;
  private final Terminations terminations;
  private final Lifecycle lifecycle;
  private final EventWriter writer;
  private final Dispatcher dispatcher;
  private final Liveness liveness;
  private final SessionCommands commands;
  private final ResponseIntake intake;
  private final PackToolCalls toolCalls;
  private State state = State.AWAITING_REGISTER;
  private Registration.Registered registered;
  private InFlight inFlight;
  private boolean inboundPaused;
  private boolean draining;
  /** Retiring: no new work; once the request in flight ends, Shutdown and Retired. */
  private boolean retiring;
  private boolean responseEnded;
  /** The last write to the agent; the stream's end waits for it ({@link #endStream}). */
  private Future<Void> lastWrite = Future.succeededFuture();
  private long registerTimer = -1;
  private Runnable unwatch = () -> { };

  /** Made by {@link AgentSessions#open}, which also makes this session's parts ({@code parts}). */
  AgentSession(Caller caller, GrpcServerRequest<AgentMessage, ServerMessage> request, Context context, AgentSessions parts,
               Vertx vertx, String nodeId, Duration registerTimeout, EdgeSecurity edge, LiveCredentials live, SessionMetrics metrics,
               Registration registration, LocalSessions sessions, Presence presence, Terminations terminations,
               Lifecycle lifecycle) {
    this.caller = caller;
    this.request = request;
    this.response = request.response();
    this.context = context;
    this.vertx = vertx;
    this.nodeId = nodeId;
    this.registerTimeout = registerTimeout;
    this.edge = edge;
    this.live = live;
    this.metrics = metrics;
    this.registration = registration;
    this.sessions = sessions;
    this.presence = presence;
    this.terminations = terminations;
    this.lifecycle = lifecycle;
    this.writer = parts.eventWriter(this);
    this.dispatcher = parts.dispatcher(this);
    this.liveness = parts.liveness(this);
    this.commands = parts.commands(this);
    this.intake = parts.intake(this, writer);
    this.toolCalls = parts.toolCalls(this);
  }

  /** Wires the stream; the agent has {@code registerTimeout} to send RegisterAgent. */
  public void start() {
    // frames are decoded here, not by Vert.x, so that garbage gets INVALID_ARGUMENT instead of a
    // reset, and a compressed frame is inflated only up to the message limit
    request.messageHandler(frame -> {
      AgentMessage message;
      try {
        message = edge.messages().decode(frame, CovenControlGrpcService.AgentStream.decoder());
      } catch (ConclaveException e) {
        if (state != State.CLOSED) {
          fail(e);
        }
        return;
      }
      onMessage(message);
    });
    edge.messages().bound(request, e -> {
      if (state != State.CLOSED) {
        fail(e);
      }
    });
    request.exceptionHandler(err -> close("stream failed: " + err.getMessage(), Optional.empty()));
    // a reset (the agent's process or connection went away) arrives as a gRPC error
    request.errorHandler(err -> close("stream reset by the agent: " + err, Optional.empty()));
    request.endHandler(v -> close("agent closed its stream", Optional.empty()));
    response.exceptionHandler(err -> close("response stream failed: " + err.getMessage(), Optional.empty()));
    if (sessions.draining()) {
      // a stopping node takes no new agents: they go to another node
      fail(GatewayErrors.nodeStopping());
      return;
    }
    unwatch = live.watch(caller, this::revoked);
    // Coven agents wait for response headers before they register
    lastWrite = response.writeHead();
    long timeout = registerTimeout.toMillis();
    registerTimer = vertx.setTimer(timeout, t -> {
      if (state == State.AWAITING_REGISTER) {
        fail(GatewayErrors.registerTimeout(timeout / 1000));
      }
    });
  }

  private void onMessage(AgentMessage message) {
    if (state == State.CLOSED) {
      return;
    }
    liveness.touch();
    if (state == State.AWAITING_REGISTER) {
      if (message.getPayloadCase() == AgentMessage.PayloadCase.REGISTER) {
        register(message);
      } else {
        fail(GatewayErrors.firstMessageNotRegister(payloadName(message)));
      }
      return;
    }
    switch (message.getPayloadCase()) {
      case REGISTER -> fail(GatewayErrors.alreadyRegistered());
      case RESPONSE -> {
        if (inFlight != null) {
          // the agent's events as events of the request's span: when each came, by kind
          inFlight.span().addEvent("agent." + message.getResponse().getEventCase().name().toLowerCase(java.util.Locale.ROOT));
          if (message.getResponse().hasToolApprovalRequest()) {
            inFlight.approvalWaitStarted(vertx, message.getResponse().getToolApprovalRequest().getId());
          }
        }
        intake.accept(message.getResponse());
      }
      case HEARTBEAT -> {
        // liveness already refreshed
      }
      case INJECTION_ACK -> commands.onInjectionAck(message.getInjectionAck());
      case EXECUTE_PACK_TOOL -> toolCalls.execute(message.getExecutePackTool(),
        inFlight == null ? io.opentelemetry.api.trace.Span.getInvalid() : inFlight.span());
      default -> metrics.dropped(SessionMetrics.DropReason.UNKNOWN_MESSAGE, agentId(), "");
    }
  }

  private void register(AgentMessage message) {
    vertx.cancelTimer(registerTimer);
    state = State.REGISTERING;
    pauseInbound();
    String requestedId = message.getRegister().getAgentId();
    registration.performInTurn(context, () -> state == State.CLOSED, caller, message.getRegister()).onComplete(ar -> {
      if (state == State.CLOSED) {
        // the stream went away while registering: undo the presence claim
        if (ar.succeeded()) {
          ar.result().registered().mcpToken().end();
          presence.release(ar.result().registered().presence());
        }
        return;
      }
      edge.audit(caller, "agent.register", "agent_id=" + requestedId, ar.failed() ? ar.cause() : null, remote());
      if (ar.failed()) {
        rejected(requestedId, ar.cause());
        return;
      }
      registered = ar.result().registered();
      state = State.REGISTERED;
      sessions.put(agentId(), this).ifPresent(old -> old.superseded());
      ar.result().welcome().onComplete(welcome -> {
        if (state != State.REGISTERED) {
          return;
        }
        if (welcome.failed()) {
          fail(Failures.report(LOG, "agent welcome agent=" + agentId(), welcome.cause()));
          return;
        }
        send(welcome.result());
        metrics.registered();
        LOG.info("agent registered agent={} epoch={} principal={} node={} features={}", agentId(), epoch(),
          registered.principal().id(), nodeId, registered.agent().features());
        resumeInbound();
        liveness.start();
        dispatcher.poll();
      });
    });
  }

  private void rejected(String requestedId, Throwable cause) {
    if (cause instanceof RegistrationRejected r) {
      LOG.info("agent registration refused agent={} principal={} reason={}", requestedId, caller.principalId(), r.status.getMessage());
      send(ServerMessage.newBuilder().setRegistrationError(RegistrationError.newBuilder()
        .setReason(r.status.detail()).setSuggestedId(r.suggestedId)).build());
      fail(r.status);
    } else {
      fail(Failures.report(LOG, "agent registration agent=" + requestedId, cause));
    }
  }

  // ---- called by the dispatcher, the writer and commands (on this session's context) ----------

  /** Work was queued for this agent. */
  void wake() {
    dispatcher.wake();
  }

  /** A client's message for this agent, written with the agent's next dispatch when it is idle. */
  Future<Handoff.Written> acceptAndDispatch(Handoff.Message message) {
    return dispatcher.acceptAndDispatch(message);
  }

  Vertx vertx() {
    return vertx;
  }

  void dispatched(InFlight flight) {
    inFlight = flight;
  }

  /** The in-flight request ended (its terminal event is stored, or it was discarded and the agent finished it). */
  void requestEnded(InFlight flight) {
    if (inFlight != flight) {
      return;
    }
    if (flight.cancelTimer() >= 0) {
      vertx.cancelTimer(flight.cancelTimer());
    }
    flight.endApprovalWaits("request_ended");
    flight.span().end();
    inFlight = null;
    if (retiring) {
      finishRetirement();
    } else if (draining) {
      close("drained", Optional.of(GatewayErrors.nodeStopping()));
    } else {
      dispatcher.requestEnded();
    }
  }

  /** Writes to the agent; false when the stream is gone. */
  boolean send(ServerMessage message) {
    if (state == State.CLOSED || responseEnded) {
      return false;
    }
    try {
      Future<Void> written = response.write(message);
      lastWrite = written;
      written.onFailure(err -> close("write failed: " + err.getMessage(), Optional.empty()));
      return true;
    } catch (RuntimeException streamGone) {
      // IllegalStateException, or Vert.x 5.0.7's NPE from a stream closed under the write
      close("stream gone: " + streamGone.getMessage(), Optional.empty());
      return false;
    }
  }

  boolean writeQueueFull() {
    return response.writeQueueFull();
  }

  void pauseInbound() {
    if (!inboundPaused) {
      inboundPaused = true;
      request.pause();
    }
  }

  void resumeInbound() {
    if (inboundPaused && state != State.REGISTERING) {
      inboundPaused = false;
      request.resume();
    }
  }

  /** The presence entry this session holds, once registered. */
  public Optional<dev.conclave.gateway.presence.PresenceEntry> presence() {
    return Optional.ofNullable(registered).map(Registration.Registered::presence);
  }

  /** Found stale by reconciliation: the agent registered again on another node. */
  public void supersededElsewhere() {
    superseded();
  }

  /** A newer session of the same agent registered. */
  void superseded() {
    runOnContext(() -> {
      send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder()
        .setReason("superseded: the same agent registered again on a newer connection")).build());
      close("superseded by a newer connection", Optional.of(GatewayErrors.superseded()));
    });
  }

  /** The agent is Retiring: it finishes the request in flight (if any), then gets Shutdown and is Retired. */
  void retire() {
    if (retiring || state != State.REGISTERED) {
      return;
    }
    retiring = true;
    LOG.info("agent retiring agent={} inFlight={}", agentId(), inFlight == null ? "none" : inFlight.id());
    if (inFlight == null) {
      finishRetirement();
    }
  }

  private void finishRetirement() {
    String agent = agentId();
    send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder()
      .setReason("retired: an operator retired this agent; it must not reconnect")).build());
    lifecycle.retired(agent, "the request in flight finished").onComplete(ar -> runOnContext(() -> {
      if (ar.failed()) {
        LOG.error("could not record an agent's retirement agent={}", agent, ar.cause());
      }
      close("retired", Optional.of(GatewayErrors.agentRetired(agent)));
    }));
  }

  /** Graceful node stop: tell the agent to reconnect elsewhere; end once its request is done. */
  public Future<Void> drain(String reason) {
    Promise<Void> closed = Promise.promise();
    runOnContext(() -> {
      draining = true;
      send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder().setReason(reason)).build());
      if (inFlight == null && !dispatcher.polling()) {
        close("node stopping", Optional.of(GatewayErrors.nodeStopping()));
      }
      closed.complete();
    });
    return closed.future();
  }

  /** Draining, nothing in flight, no dispatch pending: the hand-over is complete. */
  void drained() {
    close("node stopping", Optional.of(GatewayErrors.nodeStopping()));
  }

  /** Ends the stream now; an in-flight request ends with a recoverable error. */
  public void forceClose(String reason) {
    runOnContext(() -> close(reason, Optional.of(GatewayErrors.nodeStopping())));
  }

  public Future<JsonObject> command(JsonObject command) {
    Promise<JsonObject> reply = Promise.promise();
    runOnContext(() -> commands.handle(command).onComplete(reply));
    return reply.future();
  }

  void failUnavailable(String message) {
    fail(new ConclaveException(dev.conclave.platform.errors.ErrorKind.UNAVAILABLE, "storage_unavailable", message));
  }

  /** The caller's credentials were revoked: the agent is told to stop, then the stream ends. */
  private void revoked(String reason) {
    if (state == State.CLOSED) {
      return;
    }
    LOG.warn("agent stream closed: credentials revoked agent={} principal={} reason={}", agentId(), caller.principalId(), reason);
    send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder().setReason("credentials revoked: " + reason)).build());
    fail(AuthErrors.credentialsRevoked(reason));
  }

  /** Ends the stream with a status naming what went wrong. */
  void fail(ConclaveException error) {
    close(error.code() + ": " + error.detail(), Optional.of(error));
  }

  private void close(String reason, Optional<ConclaveException> status) {
    if (state == State.CLOSED) {
      return;
    }
    State was = state;
    state = State.CLOSED;
    unwatch.run();
    vertx.cancelTimer(registerTimer);
    liveness.stop();
    Future<Void> dispatchSettled = dispatcher.stop();
    if (inFlight != null) {
      // the request goes on elsewhere (requeued, or ended by the sweep): its span here ends now
      inFlight.span().addEvent("agent.disconnected");
      inFlight.endApprovalWaits("agent_disconnected");
      inFlight.span().end();
    }
    if (!responseEnded) {
      responseEnded = true;
      endStream(status);
    }
    if (was == State.REGISTERED || was == State.REGISTERING && registered != null) {
      LOG.info("agent disconnected agent={} epoch={} node={} reason={}", agentId(), epoch(), nodeId, reason);
      edge.lifecycle(caller, "agent.disconnect", "agent_id=" + agentId(), reason, remote());
      // after any dispatch query still running has settled, so a request it took goes back to the
      // queue instead of ending as an error it never earned; the session leaves the node's table
      // only when all of this is done, so a draining node waits for it before closing its pool
      // the MCP token ends first: once the agent is gone from presence, its token is refused everywhere
      Future.join(registered.mcpToken().end().transform(ended -> presence.release(registered.presence())),
          dispatchSettled.compose(v -> terminations.sessionClosed(agentId(), epoch())))
        .onFailure(err -> LOG.error("could not finish closing a session agent={}", agentId(), err))
        .onComplete(ar -> sessions.remove(agentId(), this));
    } else {
      LOG.info("agent stream closed before registration principal={} reason={}", caller.principalId(), reason);
    }
  }

  /**
   * Ends the response once what was written to the agent before has gone out. Vert.x 5.0.7 queues
   * the trailers of an end behind writes the agent has not taken yet (it is slow, or stopped
   * reading) with no promise: when the agent then resets the stream, disposing of them throws a
   * NullPointerException in Netty's stream-close listener, which Netty logs at ERROR. Waiting keeps
   * the trailers out of that queue; an agent that has taken nothing within
   * {@link #END_AFTER_WRITES_MS} has its stream reset. A failed write means the stream is gone:
   * there is nothing left to end.
   */
  private void endStream(Optional<ConclaveException> status) {
    Runnable end = () -> {
      try {
        if (status.isPresent()) {
          dev.conclave.platform.server.GrpcFailures.end(response, status.get());
        } else {
          response.end();
        }
      } catch (RuntimeException alreadyEnded) {
        // the peer reset the stream first (IllegalStateException, or Vert.x 5.0.7's NPE from the
        // closed stream's write queue): the session's own cleanup must still run
      }
    };
    Future<Void> pending = lastWrite;
    if (pending.isComplete()) {
      end.run();
      return;
    }
    long timer = vertx.setTimer(END_AFTER_WRITES_MS, t -> {
      try {
        response.cancel();
      } catch (RuntimeException alreadyGone) {
        // reset or ended meanwhile
      }
    });
    pending.onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.succeeded()) {
        end.run();
      }
    });
  }

  /** Runs {@code action} on this session's event loop after the task running now (and the reads it is handling). */
  void later(Runnable action) {
    context.runOnContext(v -> action.run());
  }

  void runOnContext(Runnable action) {
    if (Context.isOnEventLoopThread() && Vertx.currentContext() == context) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }

  // ---- accessors --------------------------------------------------------------------------------

  public String agentId() {
    return registered == null ? "" : registered.agent().agentId();
  }

  public long epoch() {
    return registered == null ? -1 : registered.agent().epoch();
  }

  boolean registered() {
    return state == State.REGISTERED;
  }

  /** Registered and not closing. */
  public boolean isOpen() {
    return state == State.REGISTERED;
  }

  boolean draining() {
    return draining;
  }

  InFlight inFlight() {
    return inFlight;
  }

  Registration.Registered registration() {
    return registered;
  }

  Caller caller() {
    return caller;
  }

  GrpcServerRequest<AgentMessage, ServerMessage> request() {
    return request;
  }

  UUID principalId() {
    return caller.principalId();
  }

  private String remote() {
    return request.connection() == null || request.connection().remoteAddress() == null ? "" : request.connection().remoteAddress().toString();
  }

  private static String payloadName(AgentMessage m) {
    return m.getPayloadCase() == AgentMessage.PayloadCase.PAYLOAD_NOT_SET ? "nothing" : m.getPayloadCase().name().toLowerCase();
  }
}
