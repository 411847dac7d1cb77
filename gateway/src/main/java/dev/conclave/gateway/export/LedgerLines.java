package dev.conclave.gateway.export;

import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.ledger.LedgerViews;
import dev.conclave.gateway.streaming.DashboardEvents;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * One ledger event as the HTTP history renders it, {@code {"seq", "event"}} with the event in
 * protobuf's JSON form, and as one NDJSON line of that object. The history page, the export and any
 * other NDJSON of ledger events write it here, so there is one format.
 */
public final class LedgerLines {

  private LedgerLines() {
  }

  /** The event as the history route's {@code events[]} holds it. */
  public static JsonObject json(LedgerEvent event) {
    return DashboardEvents.json(event.seq(), LedgerViews.streamEvent(event));
  }

  /** The event as one NDJSON line: {@link #json} encoded on one line, ending in {@code \n}. */
  public static Buffer line(LedgerEvent event) {
    return json(event).toBuffer().appendByte((byte) '\n');
  }
}
