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
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
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
 * Conversation retention on a real database, time compressed by rows written with old timestamps:
 * old events go except each conversation's latest K and those of unfinished requests; finished
 * requests go once no kept event names them; the archive then brings a conversation back whole
 * (same rows, same seqs), and a second restore adds nothing.
 */
class ConversationRetentionTest {

  /** The bound of each wait here (the shared one is shorter). */
  private static final java.time.Duration STEP = java.time.Duration.ofSeconds(60);

  private static final int KEEP = 50;

  private PgUrl db;
  private Vertx vertx;
  private Pool pool;

  @BeforeEach
  void setUp() {
    db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(new SchemaMigration("auth"), new SchemaMigration("gateway")));
    vertx = Vertx.vertx();
    pool = PgPools.create(vertx, db, 4, 16);
    // A: 120 old events; seq 1-100 of request a1, 101-120 of a2 (both done long ago); a0 done long ago without events;
    //    a3 queued long ago. Retention takes seq 1-70; a1 and a2 stay (kept events name them), a0 goes, a3 stays.
    conversation("A", 120);
    request("00000000-0000-0000-0000-0000000000a0", "A", "done", "now() - interval '100 days'");
    request("00000000-0000-0000-0000-0000000000a1", "A", "done", "now() - interval '100 days'");
    request("00000000-0000-0000-0000-0000000000a2", "A", "error", "now() - interval '100 days'");
    request("00000000-0000-0000-0000-0000000000a3", "A", "queued", "NULL");
    events("A", 1, 100, "00000000-0000-0000-0000-0000000000a1", "now() - interval '100 days'");
    events("A", 101, 120, "00000000-0000-0000-0000-0000000000a2", "now() - interval '100 days'");
    // B: 80 old events of a request still dispatched: all stay
    conversation("B", 80);
    request("00000000-0000-0000-0000-0000000000b1", "B", "dispatched", "NULL");
    events("B", 1, 80, "00000000-0000-0000-0000-0000000000b1", "now() - interval '100 days'");
    // C: 70 events inside the window: all stay
    conversation("C", 70);
    events("C", 1, 70, null, "now() - interval '10 days'");
    // D: 100 old events, d1 has 1-40 and d2 41-100: seq 1-50 go, d1 with them, d2 stays
    conversation("D", 100);
    request("00000000-0000-0000-0000-0000000000d1", "D", "cancelled", "now() - interval '100 days'");
    request("00000000-0000-0000-0000-0000000000d2", "D", "done", "now() - interval '100 days'");
    events("D", 1, 40, "00000000-0000-0000-0000-0000000000d1", "now() - interval '100 days'");
    events("D", 41, 100, "00000000-0000-0000-0000-0000000000d2", "now() - interval '100 days'");
    // what the agent reported about d1 (goes with it) and a1 (stays with it)
    details("00000000-0000-0000-0000-0000000000d1", "D");
    details("00000000-0000-0000-0000-0000000000a1", "A");
  }

  private static final String DETAILS_OF_D = "SELECT md5(x) FROM (SELECT a::text AS x FROM gateway.approvals a WHERE conversation_key = 'D' "
    + "UNION ALL SELECT t::text FROM gateway.tool_calls t WHERE conversation_key = 'D' "
    + "UNION ALL SELECT q::text FROM gateway.questions q WHERE conversation_key = 'D') s ORDER BY 1";

  private void details(String request, String conversation) {
    TestDatabase.execute(db, "INSERT INTO gateway.approvals (request_id, tool_id, agent_id, conversation_key, tool_name, input_json, "
      + "ledger_seq, state, created_at) VALUES ('" + request + "', 'tool-1', 'agent', '" + conversation + "', 'bash', '{}', 3, 'approved', "
      + "now() - interval '100 days')");
    TestDatabase.execute(db, "INSERT INTO gateway.tool_calls (request_id, tool_id, agent_id, conversation_key, name, state, updated_at) "
      + "VALUES ('" + request + "', 'tool-1', 'agent', '" + conversation + "', 'bash', 'done', now() - interval '100 days')");
    TestDatabase.execute(db, "INSERT INTO gateway.questions (question_id, agent_id, conversation_key, request_id, question, ledger_seq, "
      + "state, selected, created_at, expires_at) VALUES (gen_random_uuid(), 'agent', '" + conversation + "', '" + request + "', "
      + "decode('0a01', 'hex'), 4, 'answered', ARRAY['yes'], now() - interval '100 days', now() - interval '99 days')");
  }

  @AfterEach
  void tearDown() throws Exception {
    await(vertx.close(), STEP);
  }

  @Test
  void deletesOldEventsButKeepsTheLatestAndThoseUnfinishedRequestsNeed() throws Exception {
    RetentionWorker.Run run = await(worker(10, Optional.empty()).runOnce(), STEP);
    assertThat(run.deleted("events")).isEqualTo(120);
    assertThat(run.batches("events")).as("120 rows in batches of 10, the last one empty").isEqualTo(13);
    assertThat(run.deleted("requests")).isEqualTo(2);
    assertThat(query("SELECT conversation_key || ':' || min(seq) || '-' || max(seq) || ':' || count(*) FROM gateway.events "
      + "GROUP BY conversation_key ORDER BY conversation_key"))
      .containsExactly("A:71-120:50", "B:1-80:80", "C:1-70:70", "D:51-100:50");
    assertThat(query("SELECT right(id::text, 2) FROM gateway.requests ORDER BY id")).containsExactly("a1", "a2", "a3", "b1", "d2");
    assertThat(run.deleted("approvals") + run.deleted("request-tool-calls") + run.deleted("questions")).as("d1's").isEqualTo(3);
    assertThat(query("SELECT conversation_key FROM gateway.approvals UNION ALL SELECT conversation_key FROM gateway.tool_calls "
      + "UNION ALL SELECT conversation_key FROM gateway.questions")).containsOnly("A").hasSize(3);
    RetentionWorker.Run again = await(worker(10, Optional.empty()).runOnce(), STEP);
    assertThat(again.deleted("events") + again.deleted("requests")).as("a second run").isZero();
  }

  @Test
  void aRestoreBringsAConversationBackWholeAndTwiceAddsNothing(@TempDir Path dir) throws Exception {
    String rowsOfA = "SELECT md5(e::text) FROM gateway.events e WHERE conversation_key = 'A' ORDER BY seq";
    String requestsOfD = "SELECT md5(r::text) FROM gateway.requests r WHERE conversation_key = 'D' ORDER BY id";
    List<String> before = query(rowsOfA);
    List<String> requestsBefore = query(requestsOfD);
    List<String> detailsBefore = query(DETAILS_OF_D);
    assertThat(detailsBefore).hasSize(3);
    await(worker(7, Optional.of(dir)).runOnce(), STEP);
    assertThat(query(rowsOfA)).hasSize(KEEP);
    assertThat(query(requestsOfD)).hasSize(1);

    ConversationRestore.Archived archivedA = ConversationRestore.read(dir, "A");
    assertThat(archivedA.events()).hasSize(70);
    ConversationRestore.Result first = await(archivedA.restore(pool), STEP);
    assertThat(first.restoredEvents()).isEqualTo(70);
    assertThat(query(rowsOfA)).as("every row of A as it was, in seq order").isEqualTo(before);
    ConversationRestore.Result second = await(ConversationRestore.read(dir, "A").restore(pool), STEP);
    assertThat(second.restoredEvents()).isZero();
    assertThat(query(rowsOfA)).isEqualTo(before);

    ConversationRestore.Result d = await(ConversationRestore.read(dir, "D").restore(pool), STEP);
    assertThat(d.restoredEvents()).isEqualTo(50);
    assertThat(d.restoredRequests()).isEqualTo(1);
    assertThat(query(requestsOfD)).isEqualTo(requestsBefore);
    assertThat(d.restoredDetails()).isEqualTo(3);
    assertThat(query(DETAILS_OF_D)).isEqualTo(detailsBefore);
    assertThat(query("SELECT last_seq::text FROM gateway.conversations WHERE conversation_key = 'D'")).containsExactly("100");
  }

  private RetentionWorker worker(int batch, Optional<Path> archive) {
    return new RetentionWorker(vertx, pool, "gateway", ConversationRetention.rules(Duration.ofDays(30), KEEP, Duration.ofDays(30)),
      new RetentionSettings(batch, Duration.ofHours(1), archive), new SimpleMeterRegistry());
  }

  private void conversation(String key, int lastSeq) {
    TestDatabase.execute(db, "INSERT INTO gateway.conversations (conversation_key, agent_id, last_seq) VALUES ('" + key + "', 'agent', "
      + lastSeq + ")");
  }

  private void request(String id, String conversation, String state, String finished) {
    TestDatabase.execute(db, "INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, "
      + "content, attachments, state, created_at, finished_at) VALUES ('" + id + "', 'agent', '" + conversation + "', "
      + "'00000000-0000-0000-0000-0000000000ff', 'someone', 'k-" + id + "', 'hello', decode('00ff', 'hex'), '" + state + "', "
      + "now() - interval '101 days', " + finished + ")");
  }

  private void events(String conversation, int from, int to, String request, String created) {
    TestDatabase.execute(db, "INSERT INTO gateway.events (conversation_key, seq, request_id, kind, author, text, payload, raw, "
      + "created_at) SELECT '" + conversation + "', s, " + (request == null ? "NULL" : "'" + request + "'") + ", 'text', 'agent', "
      + "'chunk ' || s, convert_to('payload ' || s, 'UTF8'), CASE WHEN s % 2 = 0 THEN decode('00ff10', 'hex') END, "
      + created + " + s * interval '1 second' FROM generate_series(" + from + ", " + to + ") s");
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
