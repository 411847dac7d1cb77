package dev.conclave.swarm.store;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Takes published-to-be events out of the swarm.events outbox (swarm.take_events). */
public final class EventStore {

  private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final Pool pool;

  public EventStore(Pool pool) {
    this.pool = pool;
  }

  /** Up to {@code limit} of the oldest events, deleted from the outbox, in seq order, as bus messages. */
  public Future<List<JsonObject>> take(int limit) {
    return pool.preparedQuery("SELECT seq, kind, event, entity_id, at, data FROM swarm.take_events($1)")
      .execute(Tuple.of(limit))
      .map(rows -> {
        List<Row> taken = new ArrayList<>(rows.size());
        rows.forEach(taken::add);
        taken.sort(Comparator.comparingLong(r -> r.getLong("seq")));
        List<JsonObject> events = new ArrayList<>(taken.size());
        for (Row row : taken) {
          events.add(new JsonObject()
            .put("kind", row.getString("kind"))
            .put("event", row.getString("event"))
            .put("id", row.getString("entity_id"))
            .put("at", ISO.format(row.getOffsetDateTime("at")))
            .put("seq", row.getLong("seq"))
            .put("data", row.getJsonObject("data")));
        }
        return events;
      });
  }
}
