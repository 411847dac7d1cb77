package dev.conclave.swarm.store;

import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.time.Instant;
import java.util.Optional;

/** Agents for operators (list, read, queue heartbeat commands) and the learnings search. */
public final class AgentStore {

  private static final SqlFile SQL = SqlFile.of(AgentStore.class, "agents.sql");

  private final Pool pool;

  public AgentStore(Pool pool) {
    this.pool = pool;
  }

  public Future<JsonArray> list(String status) {
    return SQL.get("List").with("status", status).execute(pool)
      .map(rows -> {
        JsonArray agents = new JsonArray();
        for (Row row : rows) {
          agents.add(row.getJsonObject("agent"));
        }
        return agents;
      });
  }

  public Future<Optional<JsonObject>> get(String id) {
    return SQL.get("Get").with("id", id).execute(pool)
      .map(rows -> rows.size() == 0 ? Optional.<JsonObject>empty() : Optional.of(rows.iterator().next().getJsonObject("agent")));
  }

  /** Queues a validated command for the agent's next heartbeat; returns the command. */
  public Future<JsonObject> queueCommand(String agentId, JsonObject command, Instant now) {
    return SQL.get("QueueCommand").with("agent_id", agentId).with("command", command).with("now", SqlTime.of(now))
      .execute(pool)
      .map(rows -> rows.iterator().next().getJsonObject("command"))
      .recover(SwarmStores::fail);
  }

  /** Full-text search over stored learnings (web-search syntax), best match first. */
  public Future<JsonArray> searchLearnings(String query, int limit) {
    return SQL.get("SearchLearnings").with("query", query).with("limit", limit).execute(pool)
      .map(rows -> rows.iterator().next().getJsonArray("learnings"));
  }
}
