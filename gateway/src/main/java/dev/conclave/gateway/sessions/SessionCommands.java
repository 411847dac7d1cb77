package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.routing.NodeCommand;
import dev.conclave.gateway.store.InjectionStore;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.proto.coven.CancelRequest;
import dev.conclave.proto.coven.InjectContext;
import dev.conclave.proto.coven.InjectionAck;
import dev.conclave.proto.coven.InjectionPriority;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolApprovalResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * Applies commands from any node to this session (on its context): cancel, discard, inject,
 * approve, supersede. Each is idempotent and checks that it targets this session's epoch. What
 * changes the session itself (wake, retire, supersede) it does not do: it returns it as a
 * {@link Decision}, which the session applies.
 */
final class SessionCommands {

  /** What the session does with a command once it is handled here. */
  enum Then { NOTHING, WAKE, RETIRE, SUPERSEDE }

  /** The command's reply, sent once the session has done {@code then}. */
  record Decision(JsonObject reply, Then then) {

    static Decision reply(JsonObject reply) {
      return new Decision(reply, Then.NOTHING);
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(SessionCommands.class);
  private static final JsonObject OK = new JsonObject().put("ok", true);

  private final SessionView session;
  private final AgentLink link;
  private final SessionLoop loop;
  private final Vertx vertx;
  private final Duration cancelGrace;
  private final Terminations terminations;
  private final InjectionStore injections;

  SessionCommands(SessionView session, AgentLink link, SessionLoop loop, Vertx vertx, Duration cancelGrace, Terminations terminations,
                  InjectionStore injections) {
    this.session = session;
    this.link = link;
    this.loop = loop;
    this.vertx = vertx;
    this.cancelGrace = cancelGrace;
    this.terminations = terminations;
    this.injections = injections;
  }

  Future<Decision> handle(JsonObject command) {
    String op = command.getString("op", "");
    long epoch = command.getLong("epoch", 0L);
    if (!session.registered() || (epoch != 0 && epoch != session.epoch())) {
      return op.equals(NodeCommand.SUPERSEDE) || op.equals(NodeCommand.WAKE)
        ? Future.succeededFuture(Decision.reply(OK))
        : Future.failedFuture(GatewayErrors.agentNotConnected(command.getString("agentId")));
    }
    return switch (op) {
      case NodeCommand.WAKE -> Future.succeededFuture(new Decision(OK, Then.WAKE));
      case NodeCommand.CANCEL -> cancel(UUID.fromString(command.getString("requestId")), command.getString("reason", "user_requested"));
      case NodeCommand.DISCARD -> discard(UUID.fromString(command.getString("requestId")));
      case NodeCommand.INJECT -> inject(command);
      case NodeCommand.APPROVE -> approve(command);
      case NodeCommand.RETIRE -> Future.succeededFuture(new Decision(OK, Then.RETIRE));
      case NodeCommand.SUPERSEDE -> Future.succeededFuture(new Decision(OK, Then.SUPERSEDE));
      default -> Future.failedFuture(ConclaveException.invalid("command_unknown", "unknown node command '" + op + "'"));
    };
  }

  private Future<Decision> cancel(UUID requestId, String reason) {
    InFlight flight = session.inFlight();
    if (flight == null || !flight.id().equals(requestId) || flight.discarded()) {
      return Future.succeededFuture(Decision.reply(new JsonObject().put("ok", true).put("inFlight", false)));
    }
    if (!session.registration().agent().declared("cancellation")) {
      return Future.failedFuture(GatewayErrors.featureNotDeclared(session.agentId(), "cancellation"));
    }
    if (flight.askCancelOnce()) {
      link.send(ServerMessage.newBuilder().setCancelRequest(CancelRequest.newBuilder().setRequestId(requestId.toString()).setReason(reason)).build());
      long grace = cancelGrace.toMillis();
      flight.cancelTimer(vertx.setTimer(grace, t -> loop.run(() -> cancelGraceExpired(flight, reason))));
    }
    return Future.succeededFuture(Decision.reply(new JsonObject().put("ok", true).put("inFlight", true)));
  }

  /** The agent did not end a cancelled request in time: the gateway ends it and drops the rest. */
  private void cancelGraceExpired(InFlight flight, String reason) {
    if (session.inFlight() != flight || flight.terminalReceived()) {
      return;
    }
    LOG.warn("agent did not confirm a cancel in time; the gateway ends the request agent={} request={}", session.agentId(), flight.id());
    terminations.cancel(flight.id(), reason + " (the agent did not confirm in time)", flight.request().principalId())
      .onComplete(ar -> loop.run(flight::discard));
  }

  private Future<Decision> discard(UUID requestId) {
    InFlight flight = session.inFlight();
    if (flight != null && flight.id().equals(requestId)) {
      flight.discard();
    }
    return Future.succeededFuture(Decision.reply(OK));
  }

  private Future<Decision> inject(JsonObject c) {
    if (!session.registration().agent().declared("injection")) {
      return Future.failedFuture(GatewayErrors.featureNotDeclared(session.agentId(), "injection"));
    }
    if (link.writeQueueFull()) {
      return Future.failedFuture(GatewayErrors.agentNotReading(session.agentId()));
    }
    InjectContext.Builder inject = InjectContext.newBuilder()
      .setInjectionId(c.getString("injectionId"))
      .setContent(c.getString("content"))
      .setPriority(InjectionPriority.forNumber(c.getInteger("priority", InjectionPriority.INJECTION_PRIORITY_NORMAL_VALUE)));
    Optional.ofNullable(c.getString("source")).ifPresent(inject::setSource);
    link.send(ServerMessage.newBuilder().setInjectContext(inject).build());
    return Future.succeededFuture(Decision.reply(OK));
  }

  private Future<Decision> approve(JsonObject c) {
    InFlight flight = session.inFlight();
    UUID requestId = UUID.fromString(c.getString("requestId"));
    if (flight == null || !flight.id().equals(requestId)) {
      return Future.failedFuture(GatewayErrors.requestFinished(requestId.toString(), "no longer in flight"));
    }
    boolean approveAll = c.getBoolean("approveAll", false);
    if (approveAll && c.getBoolean("approved", false)) {
      flight.approveAllFromNowOn();
    }
    // in the request's trace: the time since agent.tool_approval_request was a person deciding
    flight.span().addEvent("approval.decided", io.opentelemetry.api.common.Attributes.of(
      io.opentelemetry.api.common.AttributeKey.booleanKey("conclave.approved"), c.getBoolean("approved", false)));
    flight.approvalWaitEnded(c.getString("toolId"), c.getBoolean("approved", false) ? "approved" : "denied");
    link.send(ServerMessage.newBuilder().setToolApproval(ToolApprovalResponse.newBuilder()
      .setId(c.getString("toolId")).setApproved(c.getBoolean("approved", false)).setApproveAll(approveAll)).build());
    return Future.succeededFuture(Decision.reply(OK));
  }

  /** Records the agent's answer to an injection. */
  void onInjectionAck(InjectionAck ack) {
    UUID id;
    try {
      id = UUID.fromString(ack.getInjectionId());
    } catch (IllegalArgumentException e) {
      LOG.info("injection ack for an id the gateway never issued agent={} injection={}", session.agentId(), ack.getInjectionId());
      return;
    }
    injections.recordAck(id, session.agentId(), ack.getAccepted(), ack.hasReason() ? Optional.of(ack.getReason()) : Optional.empty())
      .onSuccess(known -> {
        if (!known) {
          LOG.info("injection ack for an unknown injection agent={} injection={}", session.agentId(), id);
        }
      });
  }
}
