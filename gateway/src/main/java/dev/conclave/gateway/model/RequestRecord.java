package dev.conclave.gateway.model;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** A request in an agent's mailbox, as stored. */
public record RequestRecord(
  UUID id,
  String agentId,
  String conversationKey,
  UUID principalId,
  String sender,
  String content,
  Optional<byte[]> attachments,
  RequestState state,
  Instant createdAt,
  Optional<Instant> dispatchedAt,
  Optional<Long> dispatchEpoch,
  Optional<String> dispatchNode,
  Optional<Instant> finishedAt,
  Optional<String> cancelReason,
  boolean approveAll,
  /* the sender's W3C traceparent: the parent of the request's dispatch span (docs/observability.md) */
  Optional<String> traceContext) {
}
