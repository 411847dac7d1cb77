package dev.conclave.gateway.streaming;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.contract.Addresses;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/** Publishes committed ledger events to live subscribers, and reads them back. */
public final class LiveEvents {

  /** A live event: its ledger sequence number and what clients see. */
  public record Live(long seq, ClientStreamEvent event) {
  }

  private final Vertx vertx;

  public LiveEvents(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Call only after the event is committed to the ledger. */
  public void publish(String conversationKey, long seq, ClientStreamEvent event) {
    vertx.eventBus().publish(Addresses.conversation(conversationKey), Buffer.buffer().appendLong(seq).appendBytes(event.toByteArray()));
  }

  public static Live decode(Buffer body) {
    try {
      return new Live(body.getLong(0), ClientStreamEvent.parseFrom(body.getBytes(8, body.length())));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("not a live conversation event", e);
    }
  }
}
