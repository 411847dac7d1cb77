package dev.conclave.gateway.sessions;

import dev.conclave.gateway.mailbox.RequestRecord;

import java.util.UUID;

/**
 * The one request an agent session has handed to its agent. Owned by the session's context.
 *
 * <p>{@code discarded}: the gateway ended the request itself (a cancel for an agent without the
 * cancellation feature, or a cancel grace that ran out). The agent may still be working on it, so
 * the session drops its further events and waits for its terminal event before dispatching more.
 */
final class InFlight {

  private static final int MAX_TEXT_CHARS = 1 << 20;

  final RequestRecord request;
  final StringBuilder text = new StringBuilder();
  boolean approveAll;
  boolean discarded;
  boolean terminalReceived;
  boolean cancelAsked;
  long persistedEvents;
  long cancelTimer = -1;

  InFlight(RequestRecord request) {
    this.request = request;
    this.approveAll = request.approveAll();
  }

  UUID id() {
    return request.id();
  }

  String conversationKey() {
    return request.conversationKey();
  }

  void appendText(String chunk) {
    if (text.length() + chunk.length() <= MAX_TEXT_CHARS) {
      text.append(chunk);
    }
  }
}
