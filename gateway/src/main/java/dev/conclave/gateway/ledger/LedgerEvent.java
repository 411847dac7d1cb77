package dev.conclave.gateway.ledger;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** An event as stored in a conversation's ledger. {@code seq} is its id: 1, 2, 3… with no gaps. */
public record LedgerEvent(
  String conversationKey,
  long seq,
  Optional<UUID> requestId,
  EventKind kind,
  String author,
  Optional<String> text,
  byte[] view,
  Optional<UUID> actorPrincipalId,
  Instant at) {
}
