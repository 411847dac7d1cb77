package dev.conclave.gateway.clientsession;

import java.util.Optional;
import java.util.UUID;

/**
 * {@code response_id} bookmarks. A task's final turn is bookmarked by its request id; an earlier
 * turn (ended by a tool result) by {@code <request id>#<event id>}. Coven agents keep their thread by
 * conversation, so a later {@code user_input} may name any bookmark of the session's conversation,
 * and continues that conversation.
 */
final class ResponseIds {

  private ResponseIds() {
  }

  static String turn(String requestId, long seq) {
    return requestId + "#" + seq;
  }

  /** The request a bookmark belongs to, if it is one. */
  static Optional<UUID> request(String responseId) {
    int hash = responseId.indexOf('#');
    try {
      return Optional.of(UUID.fromString(hash < 0 ? responseId : responseId.substring(0, hash)));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
