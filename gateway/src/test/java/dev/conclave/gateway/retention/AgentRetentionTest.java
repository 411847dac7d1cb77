package dev.conclave.gateway.retention;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.retention.RetentionSettings;
import dev.conclave.platform.retention.RetentionWorker;
import dev.conclave.platform.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Retention overridden per agent (agent_retention), on a real database, time compressed by rows
 * written two days and a hundred days old against a node setting of 90 days and 10 kept events:
 * an agent with a 1-day window loses what another agent on the setting keeps at the same age, an
 * override's keep count is honoured (with or without its own window), the agent's finished
 * requests follow its window, and clearing the override brings the agent back to the setting.
 */
class AgentRetentionTest {

  /** The bound of each wait here (the shared one is shorter). */
  private static final java.time.Duration STEP = java.time.Duration.ofSeconds(60);

  private static final int KEEP = 10;

  private PgUrl db;
  private Vertx vertx;
  private Pool pool;

  @BeforeEach
  void setUp() {
    db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(new SchemaMigration("auth"), new SchemaMigration("gateway")));
    vertx = Vertx.vertx();
    pool = PgPools.create(vertx, db, 4, 16);
    for (String agent : List.of("brief", "usual", "few", "hoarder")) {
      TestDatabase.execute(db, "INSERT INTO gateway.agents (agent_id, principal_id, instance_id) VALUES ('" + agent + "', "
        + "gen_random_uuid(), 'i-" + agent + "')");
      TestDatabase.execute(db, "INSERT INTO gateway.conversations (conversation_key, agent_id, last_seq) VALUES ('" + agent
        + ":c', '" + agent + "', 100)");
    }
    // brief, usual and few: 100 events two days old; hoarder: 100 events a hundred days old
    events("brief:c", "now() - interval '2 days'");
    events("usual:c", "now() - interval '2 days'");
    events("few:c", "now() - interval '2 days'");
    events("hoarder:c", "now() - interval '100 days'");
    // a finished request each of brief and usual, two days old, that no event names
    request("00000000-0000-0000-0000-0000000000b1", "brief");
    request("00000000-0000-0000-0000-0000000000c1", "usual");
  }

  @AfterEach
  void tearDown() throws Exception {
    await(vertx.close(), STEP);
  }

  @Test
  void anAgentsOwnWindowAndKeepCountRuleItsConversationsAndRequests() throws Exception {
    override("brief", 1, null);
    override("few", 1, 3);
    override("hoarder", null, 80);
    RetentionWorker.Run run = await(worker(7).runOnce(), STEP);
    assertThat(counts()).containsExactly(
      "brief:c:91-100:10",   // its 1-day window, the setting's 10 kept
      "few:c:98-100:3",      // its 1-day window and its 3 kept
      "hoarder:c:21-100:80", // the setting's 90 days, its 80 kept
      "usual:c:1-100:100");  // the setting: two days old is inside 90 days
    assertThat(run.deleted("events")).isEqualTo(90 + 97 + 20);
    assertThat(query("SELECT right(id::text, 2) FROM gateway.requests ORDER BY id")).as("brief's request follows its 1-day window")
      .containsExactly("c1");
    assertThat(run.deleted("requests")).isEqualTo(1);
    RetentionWorker.Run again = await(worker(7).runOnce(), STEP);
    assertThat(again.deleted("events") + again.deleted("requests")).as("a second run").isZero();
  }

  @Test
  void clearingAnOverrideReturnsTheAgentToTheSetting() throws Exception {
    AgentRetentionStore store = new AgentRetentionStore(pool);
    await(store.set("brief", Optional.of(1), Optional.of(0), Optional.empty()), STEP);
    assertThat(await(store.find("brief"), STEP).orElseThrow().conversationDays()).contains(1);
    await(store.set("brief", Optional.empty(), Optional.empty(), Optional.empty()), STEP);
    assertThat(await(store.find("brief"), STEP).orElseThrow().conversationDays()).isEmpty();
    assertThat(await(store.find("nobody"), STEP)).as("no such agent").isEmpty();
    await(worker(50).runOnce(), STEP);
    assertThat(counts()).containsExactly("brief:c:1-100:100", "few:c:1-100:100", "hoarder:c:91-100:10", "usual:c:1-100:100");
    assertThat(query("SELECT right(id::text, 2) FROM gateway.requests ORDER BY id")).containsExactly("b1", "c1");
  }

  private void override(String agent, Integer days, Integer keep) {
    TestDatabase.execute(db, "INSERT INTO gateway.agent_retention (agent_id, conversation_days, keep_events) VALUES ('" + agent + "', "
      + days + ", " + keep + ")");
  }

  private List<String> counts() throws Exception {
    return query("SELECT conversation_key || ':' || min(seq) || '-' || max(seq) || ':' || count(*) FROM gateway.events "
      + "GROUP BY conversation_key ORDER BY conversation_key");
  }

  private RetentionWorker worker(int batch) {
    return new RetentionWorker(vertx, pool, "gateway", ConversationRetention.rules(Duration.ofDays(90), KEEP, Duration.ofDays(90)),
      new RetentionSettings(batch, Duration.ofHours(1), Optional.empty()), new SimpleMeterRegistry());
  }

  private void events(String conversation, String created) {
    TestDatabase.execute(db, "INSERT INTO gateway.events (conversation_key, seq, kind, author, text, payload, created_at) SELECT '"
      + conversation + "', s, 'text', 'agent', 'chunk ' || s, convert_to('payload ' || s, 'UTF8'), " + created
      + " + s * interval '1 second' FROM generate_series(1, 100) s");
  }

  private void request(String id, String agent) {
    TestDatabase.execute(db, "INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, "
      + "content, state, created_at, finished_at) VALUES ('" + id + "', '" + agent + "', '" + agent + ":c', "
      + "'00000000-0000-0000-0000-0000000000ff', 'someone', 'k-" + id + "', 'hello', 'done', now() - interval '3 days', "
      + "now() - interval '2 days')");
  }

  private List<String> query(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
