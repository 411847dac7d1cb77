package dev.conclave.platform.audit;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.UUID;

/** Reads the audit log, newest first, with filters and cursor paging; each entry with the number of acts it stands for ({@code count}). */
public final class AuditQuery {

  /** What to look for; every filter is optional. {@code before} is a cursor: entries older than it. */
  public record Filter(Optional<UUID> actor, Optional<String> actionPrefix, Optional<String> targetContains, Optional<String> outcome,
                       Optional<Instant> since, Optional<Instant> until, Optional<Long> before, int limit) {
  }

  private static final SqlFile SQL = SqlFile.of(AuditQuery.class, "audit.sql");

  private final Pool pool;

  public AuditQuery(Pool pool) {
    this.pool = pool;
  }

  /** {@code {"entries": [...], "nextCursor"?}}; a page ends where {@code nextCursor} continues. */
  public Future<JsonObject> page(Filter f) {
    return SQL.get("Page").with("actor", f.actor().orElse(null)).with("action_prefix", f.actionPrefix().orElse(null))
      .with("target", f.targetContains().orElse(null)).with("outcome", f.outcome().orElse(null))
      .with("since", f.since().map(t -> t.atOffset(ZoneOffset.UTC)).orElse(null))
      .with("until", f.until().map(t -> t.atOffset(ZoneOffset.UTC)).orElse(null)).with("before", f.before().orElse(null))
      .with("limit", f.limit() + 1)
      .execute(pool)
      .map(rows -> {
        JsonArray entries = new JsonArray();
        long last = -1;
        int n = 0;
        for (Row r : rows) {
          if (n++ == f.limit()) {
            break;
          }
          last = r.getLong("id");
          entries.add(json(r));
        }
        JsonObject page = new JsonObject().put("entries", entries);
        if (rows.size() > f.limit()) {
          page.put("nextCursor", Long.toString(last));
        }
        return page;
      });
  }

  private static JsonObject json(Row r) {
    JsonObject json = new JsonObject()
      .put("id", r.getLong("id"))
      .put("at", DateTimeFormatter.ISO_INSTANT.format(r.getOffsetDateTime("at").toInstant()))
      .put("actorType", r.getString("actor_type"))
      .put("action", r.getString("action"))
      .put("target", r.getString("target"))
      .put("outcome", r.getString("outcome"))
      .put("remote", r.getString("remote"))
      .put("node", r.getString("node"))
      .put("count", r.getInteger("count"));
    UUID actor = r.getUUID("actor_id");
    if (actor != null) {
      json.put("actorId", actor.toString());
    }
    if (r.getString("detail") != null) {
      json.put("detail", r.getString("detail"));
    }
    return json;
  }
}
