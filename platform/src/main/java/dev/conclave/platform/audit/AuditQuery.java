package dev.conclave.platform.audit;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.UUID;

/** Reads the audit log, newest first, with filters and cursor paging. */
public final class AuditQuery {

  /** What to look for; every filter is optional. {@code before} is a cursor: entries older than it. */
  public record Filter(Optional<UUID> actor, Optional<String> actionPrefix, Optional<String> targetContains, Optional<String> outcome,
                       Optional<Instant> since, Optional<Instant> until, Optional<Long> before, int limit) {
  }

  private final Pool pool;

  public AuditQuery(Pool pool) {
    this.pool = pool;
  }

  /** {@code {"entries": [...], "nextCursor"?}}; a page ends where {@code nextCursor} continues. */
  public Future<JsonObject> page(Filter f) {
    return pool.preparedQuery("SELECT id, at, actor_id, actor_type, action, target, outcome, detail, remote, node FROM auth.audit"
        + " WHERE ($1::uuid IS NULL OR actor_id = $1) AND ($2::text IS NULL OR action LIKE $2 || '%')"
        + " AND ($3::text IS NULL OR strpos(target, $3) > 0) AND ($4::text IS NULL OR outcome = $4)"
        + " AND ($5::timestamptz IS NULL OR at >= $5) AND ($6::timestamptz IS NULL OR at <= $6) AND ($7::bigint IS NULL OR id < $7)"
        + " ORDER BY id DESC LIMIT $8")
      .execute(Tuple.from(new Object[] {f.actor().orElse(null), f.actionPrefix().orElse(null), f.targetContains().orElse(null),
        f.outcome().orElse(null), f.since().map(t -> t.atOffset(ZoneOffset.UTC)).orElse(null),
        f.until().map(t -> t.atOffset(ZoneOffset.UTC)).orElse(null), f.before().orElse(null), f.limit() + 1}))
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
      .put("node", r.getString("node"));
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
