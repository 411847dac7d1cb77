package dev.conclave.e2e.swarm;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * What a claim+complete costs PostgreSQL when it does only part of the protocol's work, rung by
 * rung, for {@link SwarmSqlBench} (a measurement, not a second implementation: nothing else runs
 * these statements). Each rung claims a batch of ready tasks in claim order in one autocommitted
 * statement and completes them in a second, as the coordinator's batches do, and each adds to the
 * last one part of what the coordinator's batch statement does for those requests:
 * <ol start="0">
 *   <li>the two UPDATEs alone, the claim's index scan included (the data work);</li>
 *   <li>and the answers: a claim's with the task's JSON ({@code swarm.task_json}), a complete's;</li>
 *   <li>and the events ({@code swarm._event}, numbered) returned, and their task history written;</li>
 *   <li>and the agents' rows: busy with the task, then idle with one more task completed.</li>
 * </ol>
 * What the coordinator does beyond rung 3, for the same requests: reading and checking each request
 * (its JSON, its agent, its owner), choosing each agent's task by its skills and previous attempts,
 * related learnings, leases and dependents, the batch's routing and order, and the events' order.
 */
final class SqlLadder {

  /**
   * A rung: the statement that claims (parameters: how many agents, and their ids, one task each; it
   * returns the tasks' ids) and the one that completes them (parameter: the tasks' ids).
   */
  record Rung(String name, String claim, String complete) {
  }

  private static final String CANDIDATES = "SELECT id FROM swarm.tasks WHERE status = 'ready' "
    + "ORDER BY swarm.priority_rank(priority), created_at, seq LIMIT ? FOR UPDATE SKIP LOCKED";

  // (= ANY as well as the join, as in swarm.claim_batch: a generic plan, which the driver's prepared
  // statements come to, then finds the rows by primary key instead of joining the whole table)
  private static final String CLAIM_SET = "UPDATE swarm.tasks t SET status = 'claimed', assigned_agent = (?::text[])[k.n], "
    + "claimed_at = now(), started_at = NULL, progress = NULL, next_retry_at = NULL, updated_at = now() "
    + "FROM k WHERE t.id = k.id AND t.id = ANY (ARRAY(SELECT id FROM k))";

  /** The claim's candidates, numbered: each goes to the agent at its place. */
  private static final String PICK = "WITH k AS MATERIALIZED (SELECT x.id, row_number() OVER () AS n FROM (" + CANDIDATES + ") x), ";

  private static final String COMPLETE_SET = "UPDATE swarm.tasks t SET status = 'completed', result = '{\"summary\": \"done\"}', "
    + "quality = '{\"success\": true, \"qualityGatePassed\": true, \"regressions\": [], \"nextAction\": \"proceed\"}', "
    + "completed_by = t.assigned_agent, completed_at = now(), updated_at = now() WHERE t.id = ANY (?)";

  private static final String CLAIM_ANSWER = "swarm._ok(jsonb_build_object('success', true, 'task', swarm.task_json(t), "
    + "'relatedLearnings', '[]'::jsonb))::text AS answer";

  private static final String COMPLETE_ANSWER = "swarm._ok(jsonb_build_object('success', true, 'qualityGatePassed', true, "
    + "'regressions', '[]'::jsonb, 'nextAction', 'proceed'))::text";

  private static final String CLAIM_EVENT = "swarm._event('task', 'claimed', c.id, now(), "
    + "jsonb_build_object('agentId', c.assigned_agent, 'priority', c.priority, 'retryCount', c.retry_count))";

  private static final String COMPLETE_EVENT = "swarm._event('task', 'completed', d.id, now(), jsonb_build_object("
    + "'agentId', d.completed_by, 'qualityGatePassed', true, 'regressions', '[]'::jsonb, 'nextAction', 'proceed'))";

  private static final String HISTORY = "INSERT INTO swarm.task_history (task_id, seq, kind, event, at, data) "
    + "SELECT e ->> 'id', (e ->> 'seq')::bigint, 'task', e ->> 'event', now(), e -> 'data' FROM ev";

  static final List<Rung> RUNGS = List.of(
    new Rung("0: the two UPDATEs",
      PICK + "c AS (" + CLAIM_SET + " RETURNING t.id) SELECT array_agg(id) FROM c",
      "WITH d AS (" + COMPLETE_SET + " RETURNING t.id) SELECT count(*) FROM d"),
    new Rung("1: + answers (task JSON)",
      PICK + "c AS (" + CLAIM_SET + " RETURNING t.id, " + CLAIM_ANSWER + ") SELECT array_agg(id), array_agg(answer) FROM c",
      "WITH d AS (" + COMPLETE_SET + " RETURNING t.id) SELECT array_agg(" + COMPLETE_ANSWER + ") FROM d"),
    new Rung("2: + events, task history",
      PICK + "c AS (" + CLAIM_SET + " RETURNING t.id, t.assigned_agent, t.priority, t.retry_count, " + CLAIM_ANSWER + "), "
        + "ev AS (SELECT " + CLAIM_EVENT + " AS e FROM c), h AS (" + HISTORY + ") "
        + "SELECT (SELECT array_agg(id) FROM c), (SELECT array_agg(answer) FROM c), (SELECT jsonb_agg(e)::text FROM ev)",
      "WITH d AS (" + COMPLETE_SET + " RETURNING t.id, t.completed_by), ev AS (SELECT " + COMPLETE_EVENT + " AS e FROM d), "
        + "h AS (" + HISTORY + ") SELECT (SELECT array_agg(" + COMPLETE_ANSWER + ") FROM d), (SELECT jsonb_agg(e)::text FROM ev)"),
    new Rung("3: + agents' rows",
      PICK + "c AS (" + CLAIM_SET + " RETURNING t.id, t.assigned_agent, t.priority, t.retry_count, " + CLAIM_ANSWER + "), "
        + "busy AS (UPDATE swarm.agents a SET status = 'busy', current_task = c.id FROM c WHERE a.id = c.assigned_agent), "
        + "ev AS (SELECT " + CLAIM_EVENT + " AS e FROM c), h AS (" + HISTORY + ") "
        + "SELECT (SELECT array_agg(id) FROM c), (SELECT array_agg(answer) FROM c), (SELECT jsonb_agg(e)::text FROM ev)",
      "WITH d AS (" + COMPLETE_SET + " RETURNING t.id, t.completed_by), "
        + "idle AS (UPDATE swarm.agents a SET status = 'idle', current_task = NULL, tasks_completed = a.tasks_completed + 1 "
        + "FROM d WHERE a.id = d.completed_by), "
        + "ev AS (SELECT " + COMPLETE_EVENT + " AS e FROM d), "
        + "h AS (" + HISTORY + ") SELECT (SELECT array_agg(" + COMPLETE_ANSWER + ") FROM d), (SELECT jsonb_agg(e)::text FROM ev)"));

  private SqlLadder() {
  }

  /** How many tasks a rung completed, and the wall time its claims and its completes took. */
  record Climbed(long tasks, long claimNanos, long completeNanos) {
  }

  /**
   * Claims and completes batches of {@code agents.size()} tasks with the rung's two statements until
   * {@code tasks} are done or none is ready.
   */
  static Climbed run(Connection c, Rung rung, List<String> agents, long tasks) throws SQLException {
    Array agentIds = c.createArrayOf("text", agents.toArray());
    long done = 0;
    long claimNanos = 0;
    long completeNanos = 0;
    try (PreparedStatement claim = c.prepareStatement(rung.claim());
         PreparedStatement complete = c.prepareStatement(rung.complete())) {
      while (done < tasks) {
        claim.setInt(1, agents.size());
        claim.setArray(2, agentIds);
        Array ids;
        long t0 = System.nanoTime();
        try (ResultSet rs = claim.executeQuery()) {
          rs.next();
          ids = rs.getArray(1);
        }
        long t1 = System.nanoTime();
        claimNanos += t1 - t0;
        if (ids == null) {
          break;
        }
        complete.setArray(1, ids);
        complete.executeQuery().close();
        completeNanos += System.nanoTime() - t1;
        done += ((Object[]) ids.getArray()).length;
      }
    }
    return new Climbed(done, claimNanos, completeNanos);
  }
}
