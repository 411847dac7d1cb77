package dev.conclave.gateway.ledger;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Event;

import java.time.Instant;
import java.time.format.DateTimeFormatter;

/** Renders stored ledger events as what clients receive: stream events and history entries. */
public final class LedgerViews {

  private LedgerViews() {
  }

  /** The event as {@code StreamEvents} sends it. */
  public static ClientStreamEvent streamEvent(LedgerEvent e) {
    ClientStreamEvent stored = parse(e.view());
    ClientStreamEvent.Builder b = stored.toBuilder()
      .setConversationKey(e.conversationKey())
      .setTimestamp(iso(e.at()));
    if (stored.getPayloadCase() == ClientStreamEvent.PayloadCase.EVENT) {
      b.setEvent(historyEvent(e));
    }
    return b.build();
  }

  /**
   * A just-committed entry as live subscribers receive it: the same view a ledger read gives (its time
   * at PostgreSQL's microsecond precision, as stored).
   */
  public static ClientStreamEvent streamEvent(String conversationKey, long seq, LedgerEntry e) {
    return streamEvent(new LedgerEvent(conversationKey, seq, e.requestId(), e.kind(), e.author(), e.text(),
      e.view().toByteArray(), e.actorPrincipalId(), e.at().truncatedTo(java.time.temporal.ChronoUnit.MICROS)));
  }

  /** The event as {@code GetEvents} lists it. */
  public static Event historyEvent(LedgerEvent e) {
    Event.Builder b = Event.newBuilder()
      .setId(Long.toString(e.seq()))
      .setConversationKey(e.conversationKey())
      .setDirection(e.kind() == EventKind.INBOUND ? "inbound_to_agent" : "outbound_from_agent")
      .setAuthor(e.author())
      .setTimestamp(iso(e.at()))
      .setType(e.kind().wireType())
      .setRawTransport(e.kind().id());
    e.text().ifPresent(b::setText);
    e.requestId().ifPresent(id -> b.setRawPayloadRef("request/" + id));
    e.actorPrincipalId().ifPresent(id -> b.setActorPrincipalId(id.toString()));
    return b.build();
  }

  public static String iso(Instant at) {
    return DateTimeFormatter.ISO_INSTANT.format(at);
  }

  private static ClientStreamEvent parse(byte[] bytes) {
    try {
      return ClientStreamEvent.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("ledger holds an unreadable event", e);
    }
  }
}
