package dev.conclave.gateway.sessions;

import dev.conclave.gateway.model.RequestRecord;

import java.util.Optional;
import java.util.UUID;

/**
 * The one request an agent session has handed to its agent, and what the session knows of it so far.
 * Owned by the session's context; its state changes only through these methods.
 *
 * <p>Discarded: the gateway ended the request itself (a cancel for an agent without the
 * cancellation feature, or a cancel grace that ran out). The agent may still be working on it, so
 * the session drops its further events and waits for its terminal event before dispatching more.
 */
final class InFlight {

  /**
   * The gateway assembles StreamDone.full_response from the text chunks only up to this size, so a
   * terminal event never outgrows what ordinary gRPC clients accept; the chunks are always there.
   */
  static final int MAX_FULL_RESPONSE_CHARS = 256 * 1024;

  private final RequestRecord request;
  private final StringBuilder text = new StringBuilder();
  private boolean textOverflowed;
  private boolean approveAll;
  private boolean discarded;
  private boolean terminalReceived;
  private boolean cancelAsked;
  private boolean approvalsAsked;
  private long persistedEvents;
  private long cancelTimer = -1;
  /** The request's span here (RequestSpans.REQUEST): invalid, doing nothing, when not traced. */
  private io.opentelemetry.api.trace.Span span = io.opentelemetry.api.trace.Span.getInvalid();
  /** Tool approvals waiting for a person, by tool id, while traced. */
  private final java.util.Map<String, io.opentelemetry.api.trace.Span> waits = new java.util.HashMap<>();

  InFlight(RequestRecord request) {
    this.request = request;
    this.approveAll = request.approveAll();
  }

  RequestRecord request() {
    return request;
  }

  io.opentelemetry.api.trace.Span span() {
    return span;
  }

  void traced(io.opentelemetry.api.trace.Span span) {
    this.span = span;
  }

  /**
   * The agent asked a person to approve tool {@code toolId}: the wait is a span of the request's trace
   * (RequestSpans.WAIT_FOR_PERSON, kind approval) until the decision reaches this session, or the
   * request ends. It begins and ends here: a decision taken on any node is delivered to this session.
   */
  void approvalWaitStarted(io.vertx.core.Vertx vertx, String toolId) {
    if (!span.getSpanContext().isValid() || approveAll || waits.containsKey(toolId)) {
      return;
    }
    waits.put(toolId, dev.conclave.platform.tracing.RequestSpans.startWait(vertx, "approval",
      io.opentelemetry.context.Context.root().with(span), java.util.Map.of("conclave.tool_id", toolId)));
  }

  /** A person's decision on tool {@code toolId} reached the agent. */
  void approvalWaitEnded(String toolId, String outcome) {
    io.opentelemetry.api.trace.Span wait = waits.remove(toolId);
    if (wait != null) {
      dev.conclave.platform.tracing.RequestSpans.endWait(wait, outcome);
    }
  }

  /** The request ended here (or its agent left) with approvals still waiting: their waits end with {@code outcome}. */
  void endApprovalWaits(String outcome) {
    waits.values().forEach(w -> dev.conclave.platform.tracing.RequestSpans.endWait(w, outcome));
    waits.clear();
  }

  UUID id() {
    return request.id();
  }

  String conversationKey() {
    return request.conversationKey();
  }

  /** Whether every tool approval of this request is granted without asking. */
  boolean approveAll() {
    return approveAll;
  }

  /** From now on every tool approval of this request is granted without asking. */
  void approveAllFromNowOn() {
    approveAll = true;
  }

  /** Whether the agent asked for a tool approval in this request (it may still be pending). */
  boolean approvalsAsked() {
    return approvalsAsked;
  }

  /** The agent asked for a tool approval; set before the request's event is stored. */
  void approvalAsked() {
    approvalsAsked = true;
  }

  boolean discarded() {
    return discarded;
  }

  /** The gateway ended the request; the agent's further events are dropped. */
  void discard() {
    discarded = true;
  }

  boolean terminalReceived() {
    return terminalReceived;
  }

  void markTerminalReceived() {
    terminalReceived = true;
  }

  /**
   * The gateway ended the request and the agent has finished it too: once nothing of it is still
   * being written, the session is free for the agent's next request.
   */
  boolean discardedAndFinished() {
    return discarded && terminalReceived;
  }

  /** True only the first time: the agent is asked to cancel a request once. */
  boolean askCancelOnce() {
    if (cancelAsked) {
      return false;
    }
    cancelAsked = true;
    return true;
  }

  /** The timer that ends the cancel grace, or -1 when none was set. */
  long cancelTimer() {
    return cancelTimer;
  }

  void cancelTimer(long timerId) {
    cancelTimer = timerId;
  }

  /** How many of the agent's events for this request are stored. */
  long persistedEvents() {
    return persistedEvents;
  }

  void persisted(int events) {
    persistedEvents += events;
  }

  void appendText(String chunk) {
    if (textOverflowed) {
      return;
    }
    if (text.length() + chunk.length() <= MAX_FULL_RESPONSE_CHARS) {
      text.append(chunk);
    } else {
      textOverflowed = true;
      text.setLength(0);
    }
  }

  /** The assembled response, or empty when it grew too large to send in one message. */
  Optional<String> fullText() {
    return textOverflowed ? Optional.empty() : Optional.of(text.toString());
  }
}
