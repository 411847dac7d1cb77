package dev.conclave.gateway.retention;

import dev.conclave.platform.retention.RetentionArchive;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Brings a conversation back from the retention archive: its archived requests (with their approvals,
 * tool-call states and questions) and events, with their own ids and seqs, in one transaction. Rows already in the database are left as they are, so a second
 * restore (or a restore of a conversation retention never touched) adds nothing.
 */
public final class ConversationRestore {

  /**
   * How many events and requests of the conversation the archive held, and how many were inserted;
   * {@code restoredDetails}: the approvals, tool-call states and questions of those requests inserted.
   */
  public record Result(int archivedEvents, int restoredEvents, int archivedRequests, int restoredRequests, int restoredDetails) {
  }

  /** What belongs to a request, archived with it, and the statement that puts it back. */
  private static final Map<String, String> DETAILS = Map.of("approvals", "RestoreApprovals", "request-tool-calls", "RestoreToolCalls",
    "questions", "RestoreQuestions");

  private static final int CHUNK = 1000;

  private ConversationRestore() {
  }

  /** The conversation's archived rows, read from {@code dir} (blocking: call it off the event loop). */
  public static Archived read(Path dir, String conversationKey) throws IOException {
    List<JsonObject> events = new ArrayList<>();
    List<JsonObject> requests = new ArrayList<>();
    RetentionArchive.read(dir, "events", line -> keep(line, conversationKey, events));
    RetentionArchive.read(dir, "requests", line -> keep(line, conversationKey, requests));
    Map<String, List<JsonObject>> details = new TreeMap<>();
    for (String kind : DETAILS.keySet()) {
      List<JsonObject> rows = new ArrayList<>();
      RetentionArchive.read(dir, kind, line -> keep(line, conversationKey, rows));
      details.put(kind, rows);
    }
    events.sort(Comparator.comparingLong(e -> e.getLong("seq")));
    return new Archived(conversationKey, events, requests, details);
  }

  /** A conversation's rows as the archive holds them, events in seq order. */
  public record Archived(String conversationKey, List<JsonObject> events, List<JsonObject> requests,
                         Map<String, List<JsonObject>> details) {

    /** Inserts what is not in the database yet, in one transaction. */
    public Future<Result> restore(Pool pool) {
      String agent = requests.isEmpty() ? null : requests.get(0).getString("agent_id");
      long lastSeq = events.isEmpty() ? 0 : events.get(events.size() - 1).getLong("seq");
      return pool.withTransaction(conn -> insert(conn, "RestoreRequests", requests, 0, 0)
        .compose(restoredRequests -> details(conn, new ArrayList<>(details.keySet()), 0)
          .compose(restoredDetails -> insert(conn, "RestoreEvents", events, 0, 0)
            .compose(restoredEvents -> ConversationRetention.SQL.get("RestoreConversation").with("conversation_key", conversationKey)
              .with("agent_id", agent).with("last_seq", lastSeq).execute(conn)
              .map(v -> new Result(events.size(), restoredEvents, requests.size(), restoredRequests, restoredDetails))))));
    }

    private Future<Integer> details(io.vertx.sqlclient.SqlConnection conn, List<String> kinds, int done) {
      if (kinds.isEmpty()) {
        return Future.succeededFuture(done);
      }
      String kind = kinds.remove(0);
      return insert(conn, DETAILS.get(kind), details.get(kind), 0, 0).compose(n -> details(conn, kinds, done + n));
    }

    private static Future<Integer> insert(io.vertx.sqlclient.SqlConnection conn, String statement, List<JsonObject> rows, int from,
                                          int done) {
      if (from >= rows.size()) {
        return Future.succeededFuture(done);
      }
      JsonArray chunk = new JsonArray(new ArrayList<>(rows.subList(from, Math.min(rows.size(), from + CHUNK))));
      return ConversationRetention.SQL.get(statement).with("rows", chunk.encode()).execute(conn)
        .compose(r -> insert(conn, statement, rows, from + CHUNK, done + r.rowCount()));
    }
  }

  private static void keep(String line, String conversationKey, List<JsonObject> into) {
    JsonObject row = new JsonObject(line);
    if (conversationKey.equals(row.getString("conversation_key"))) {
      into.add(row);
    }
  }
}
