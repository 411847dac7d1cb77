package dev.conclave.swarm.store;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.Optional;

/** Agents for operators (list, read, queue heartbeat commands) and the learnings search. */
public final class AgentStore {

  private final Pool pool;

  public AgentStore(Pool pool) {
    this.pool = pool;
  }

  public Future<JsonArray> list(String status) {
    return pool.preparedQuery("SELECT swarm.agent_json(a) AS agent FROM swarm.agents a "
        + "WHERE ($1::text IS NULL OR a.status = $1) ORDER BY a.first_registered_at, a.id LIMIT 1000")
      .execute(Tuple.tuple().addValue(status))
      .map(rows -> {
        JsonArray agents = new JsonArray();
        for (Row row : rows) {
          agents.add(row.getJsonObject("agent"));
        }
        return agents;
      });
  }

  public Future<Optional<JsonObject>> get(String id) {
    return pool.preparedQuery("SELECT swarm.agent_json(a) AS agent FROM swarm.agents a WHERE a.id = $1")
      .execute(Tuple.of(id))
      .map(rows -> rows.size() == 0 ? Optional.<JsonObject>empty() : Optional.of(rows.iterator().next().getJsonObject("agent")));
  }

  /** Queues a validated command for the agent's next heartbeat; returns the command. */
  public Future<JsonObject> queueCommand(String agentId, JsonObject command, Instant now) {
    return pool.preparedQuery("SELECT swarm.queue_command($1, $2::jsonb, $3) AS command")
      .execute(Tuple.of(agentId, command, SqlTime.of(now)))
      .map(rows -> rows.iterator().next().getJsonObject("command"))
      .recover(SwarmStores::fail);
  }

  /** Full-text search over stored learnings (web-search syntax), best match first. */
  public Future<JsonArray> searchLearnings(String query, int limit) {
    return pool.preparedQuery("SELECT swarm.search_learnings($1, $2) AS learnings")
      .execute(Tuple.of(query, limit))
      .map(rows -> rows.iterator().next().getJsonArray("learnings"));
  }
}
