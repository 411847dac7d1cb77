package dev.conclave.gateway.ledger;

import dev.conclave.proto.coven.ClientStreamEvent;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * An event about to be appended to a conversation's ledger.
 *
 * @param view what clients see (ClientStreamEvent without conversation key and timestamp, which
 *     are filled in when read)
 * @param raw the agent's original message, kept where {@code view} drops data
 */
public record LedgerEntry(
  Optional<UUID> requestId,
  EventKind kind,
  String author,
  Optional<String> text,
  ClientStreamEvent view,
  Optional<byte[]> raw,
  Optional<UUID> actorPrincipalId,
  Instant at) {
}
