package dev.conclave.swarm.store;

import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Direct database access, as an agent with a PostgreSQL connection uses it: the documented functions
 * of schema swarm over plain JDBC. What it changes is the same state the HTTP API serves, and it is
 * published as events too.
 */
class DirectDatabaseTest {

  private static SwarmNode swarm;
  private static Connection db;

  @BeforeAll
  static void start() throws SQLException {
    swarm = SwarmNode.start();
    db = swarm.jdbc();
  }

  @AfterAll
  static void stop() throws SQLException {
    db.close();
    swarm.close();
  }

  private static JsonObject execute(JsonObject request) throws SQLException {
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.execute(?::jsonb)")) {
      st.setString(1, request.encode());
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return new JsonObject(rs.getString(1));
      }
    }
  }

  @Test
  void theWholeWorkLoopRunsThroughSqlFunctions() throws SQLException {
    String id = "db-agent-" + UUID.randomUUID().toString().substring(0, 6);
    String skill = "db-" + id;
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.create_tasks(?::jsonb)")) {
      st.setString(1, new JsonArray().add(new JsonObject().put("id", "dbt-" + id).put("title", "direct")
        .put("requiredSkills", new JsonArray().add(skill))).encode());
      st.executeQuery().close();
    }

    assertThat(execute(v1().put("operation", "REGISTER").put("agent", SwarmApi.agentSpec(id, List.of(skill))))
      .getBoolean("success")).isTrue();
    JsonObject claim = execute(v1().put("operation", "CLAIM").put("agentId", id));
    assertThat(claim.getJsonObject("task").getString("id")).isEqualTo("dbt-" + id);
    assertThat(execute(v1().put("operation", "PROGRESS").put("agentId", id).put("taskId", "dbt-" + id).put("progress",
      new JsonObject().put("phase", "testing").put("percentComplete", 90).put("description", "almost"))).getBoolean("continue")).isTrue();
    JsonObject complete = execute(v1().put("operation", "COMPLETE").put("agentId", id).put("taskId", "dbt-" + id)
      .put("result", SwarmApi.result("done directly")).put("qualityMetrics", new JsonObject().put("testsRan", 1)
        .put("testsPassed", 1).put("lintErrors", 0).put("typeErrors", 0).put("buildSuccess", true)));
    assertThat(complete.getBoolean("qualityGatePassed")).isTrue();

    assertThat(swarm.api().task("dbt-" + id).getString("status")).isEqualTo("completed");
    swarm.events().await("task", "completed", "dbt-" + id);
  }

  @Test
  void errorsRaiseWithTheProtocolCodeAndKind() {
    assertThatThrownBy(() -> execute(v1().put("operation", "CLAIM").put("agentId", "no-such-agent")))
      .isInstanceOfSatisfying(PSQLException.class, e -> {
        assertThat(e.getSQLState()).isEqualTo("SW404");
        assertThat(e.getServerErrorMessage().getMessage()).startsWith("agent_not_registered:");
        assertThat(new JsonObject(e.getServerErrorMessage().getDetail()).getString("code")).isEqualTo("agent_not_registered");
      });
    assertThatThrownBy(() -> execute(new JsonObject().put("protocolVersion", "0.9").put("operation", "CLAIM")))
      .isInstanceOfSatisfying(PSQLException.class, e -> {
        assertThat(e.getSQLState()).isEqualTo("SW400");
        assertThat(e.getServerErrorMessage().getMessage()).startsWith("unsupported_protocol_version:");
      });
    assertThatThrownBy(() -> execute(v1().put("operation", "REGISTER").put("agent", new JsonObject().put("id", "x"))))
      .isInstanceOfSatisfying(PSQLException.class, e -> {
        assertThat(e.getSQLState()).isEqualTo("SW400");
        assertThat(new JsonObject(e.getServerErrorMessage().getDetail()).getString("field")).isEqualTo("agent.capabilities");
      });
  }

  @Test
  void backgroundJobsCanBeRunByHand() throws SQLException {
    try (PreparedStatement st = db.prepareStatement("SELECT swarm.release_due_retries(), swarm.reap_stale_agents(), "
      + "swarm.sweep_expired_leases(), swarm.expire_messages(), swarm.sweep_housekeeping()")) {
      try (ResultSet rs = st.executeQuery()) {
        assertThat(rs.next()).isTrue();
        for (int i = 1; i <= 5; i++) {
          assertThat(rs.getInt(i)).isGreaterThanOrEqualTo(0);
        }
      }
    }
  }
}
