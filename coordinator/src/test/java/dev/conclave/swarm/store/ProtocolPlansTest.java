package dev.conclave.swarm.store;

import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements inside a CLAIM and a COMPLETE find their task through an index, never by reading
 * the whole task table: with 30,000 finished tasks stored, the plans PostgreSQL runs inside the
 * swarm functions (the generic ones a claim keeps; captured with {@code auto_explain}, nested
 * statements included) have no sequential scan of {@code swarm.tasks}, and the claim takes the
 * claim-order index. Likewise RECEIVE_MESSAGES reads no other agents' messages (30,000 of them
 * stored), and ACQUIRE_LEASE, RELEASE_LEASE and COMPLETE no other leases (30,000 of them held). A
 * sequential scan there costs every request time in proportion to the history.
 */
class ProtocolPlansTest {

  private static final String AGENT = "plans-agent";
  private static final String SKILL = "plans-skill";
  private static SwarmNode swarm;
  private static Connection db;

  @BeforeAll
  static void start() throws SQLException {
    swarm = SwarmNode.start();
    db = swarm.jdbc();
    try (Statement sql = db.createStatement()) {
      // a long history: 30,000 finished tasks
      sql.execute("SELECT swarm.create_tasks((SELECT jsonb_agg(jsonb_build_object('id', 'old-' || i, 'title', 'old work')) "
        + "FROM generate_series(1, 30000) i))");
      sql.execute("UPDATE swarm.tasks SET status = 'completed', assigned_agent = 'someone', completed_by = 'someone' WHERE id LIKE 'old-%'");
      // and 30,000 messages between other agents
      sql.execute("INSERT INTO swarm.messages (id, from_agent, to_agent, type, created_at) SELECT gen_random_uuid(), 'other-' || (i % 50), "
        + "'other-' || ((i + 1) % 50), 'custom', now() - interval '1 minute' FROM generate_series(1, 30000) i");
      // and 30,000 leases other agents hold
      sql.execute("INSERT INTO swarm.leases (file_path, agent_id, task_id, acquired_at, expires_at) SELECT 'old/file-' || i, "
        + "'someone', 'old-' || i, now(), now() + interval '1 hour' FROM generate_series(1, 30000) i");
      sql.execute("ANALYZE swarm.tasks");
      sql.execute("ANALYZE swarm.messages");
      sql.execute("ANALYZE swarm.leases");
    }
    execute(SwarmApi.v1().put("operation", "REGISTER").put("agent", SwarmApi.agentSpec(AGENT, List.of(SKILL))));
  }

  @AfterAll
  static void stop() throws SQLException {
    db.close();
    swarm.close();
  }

  @Test
  void aClaimAndItsCompleteReadNoWholeTaskTable() throws SQLException {
    try (Statement sql = db.createStatement()) {
      sql.execute("SELECT swarm.create_tasks('[{\"id\": \"plans-task\", \"title\": \"new work\", \"requiredSkills\": [\"" + SKILL + "\"]}]')");
    }
    String claim = plansOf(SwarmApi.v1().put("operation", "CLAIM").put("agentId", AGENT));
    assertThat(claim).as("the claim's plans").contains("Index Scan using tasks_claimable on tasks")
      .doesNotContain("Seq Scan on tasks");
    String complete = plansOf(SwarmApi.v1().put("operation", "COMPLETE").put("agentId", AGENT).put("taskId", "plans-task")
      .put("result", SwarmApi.result("done")));
    assertThat(complete).as("the complete's plans").contains("on tasks").doesNotContain("Seq Scan on tasks")
      // the UPDATE that checks and completes the task finds it by its key, not among the agent's tasks
      // (one task by an index scan, the tasks of a batch's COMPLETEs by a bitmap scan of the same index)
      .containsPattern("(Index Scan using|Bitmap Index Scan on) tasks_pkey").doesNotContain("tasks_by_agent")
      // releasing the task's leases looks up its own
      .doesNotContain("Seq Scan on leases");
  }

  @Test
  void aLeaseReadsNoOtherLeases() throws SQLException {
    String agent = "plans-lease-agent";
    execute(SwarmApi.v1().put("operation", "REGISTER").put("agent", SwarmApi.agentSpec(agent, List.of("plans-lease-skill"))));
    try (Statement sql = db.createStatement()) {
      sql.execute("SELECT swarm.create_tasks('[{\"id\": \"plans-lease-task\", \"title\": \"leased work\", "
        + "\"requiredSkills\": [\"plans-lease-skill\"]}]')");
    }
    execute(SwarmApi.v1().put("operation", "CLAIM").put("agentId", agent));
    String acquire = plansOf(SwarmApi.v1().put("operation", "ACQUIRE_LEASE").put("agentId", agent)
      .put("taskId", "plans-lease-task").put("filePath", "src/plans.txt").put("durationMs", 60_000));
    assertThat(acquire).as("the acquire's plans").contains("on leases").doesNotContain("Seq Scan on leases");
    String release = plansOf(SwarmApi.v1().put("operation", "RELEASE_LEASE").put("agentId", agent).put("filePath", "src/plans.txt"));
    assertThat(release).as("the release's plans").contains("on leases").doesNotContain("Seq Scan on leases");
  }

  @Test
  void aReceiveReadsNoOtherAgentsMessages() throws SQLException {
    String receive = plansOf(SwarmApi.v1().put("operation", "RECEIVE_MESSAGES").put("agentId", AGENT));
    assertThat(receive).as("the receive's plans").contains("on messages").doesNotContain("Seq Scan on messages");
  }

  /** Runs one request as a batch of one, as the coordinator does, and returns every plan it ran. */
  private static String plansOf(JsonObject request) throws SQLException {
    try (Statement sql = db.createStatement()) {
      sql.execute("LOAD 'auto_explain'");
      sql.execute("SET auto_explain.log_min_duration = 0");
      sql.execute("SET auto_explain.log_nested_statements = on");
      sql.execute("SET client_min_messages = log");
    }
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.dispatch_batch(?::jsonb, date_trunc('milliseconds', clock_timestamp()), true)")) {
      st.setString(1, new JsonArray().add(new JsonObject().put("request", request)).encode());
      st.executeQuery().close();
      StringBuilder plans = new StringBuilder();
      for (SQLWarning w = st.getWarnings(); w != null; w = w.getNextWarning()) {
        plans.append(w.getMessage()).append('\n');
      }
      return plans.toString();
    } finally {
      try (Statement sql = db.createStatement()) {
        sql.execute("RESET client_min_messages");
        sql.execute("SET auto_explain.log_min_duration = -1");
      }
    }
  }

  private static void execute(JsonObject request) throws SQLException {
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.execute(?::jsonb)")) {
      st.setString(1, request.encode());
      st.executeQuery().close();
    }
  }
}
