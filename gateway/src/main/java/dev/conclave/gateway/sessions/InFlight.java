package dev.conclave.gateway.sessions;

import dev.conclave.gateway.model.RequestRecord;

import java.util.UUID;

/**
 * The one request an agent session has handed to its agent. Owned by the session's context.
 *
 * <p>{@code discarded}: the gateway ended the request itself (a cancel for an agent without the
 * cancellation feature, or a cancel grace that ran out). The agent may still be working on it, so
 * the session drops its further events and waits for its terminal event before dispatching more.
 */
final class InFlight {

  /**
   * The gateway assembles StreamDone.full_response from the text chunks only up to this size, so a
   * terminal event never outgrows what ordinary gRPC clients accept; the chunks are always there.
   */
  static final int MAX_FULL_RESPONSE_CHARS = 256 * 1024;

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

  boolean textOverflowed;

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
  java.util.Optional<String> fullText() {
    return textOverflowed ? java.util.Optional.empty() : java.util.Optional.of(text.toString());
  }
}
