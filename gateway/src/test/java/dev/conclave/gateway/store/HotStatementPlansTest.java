package dev.conclave.gateway.store;

import dev.conclave.gateway.support.StoreFixture;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static dev.conclave.gateway.support.GatewayFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements every round trip runs find an agent's requests through their indexes, never by
 * reading the agent's whole history: with thousands of finished requests stored, the generic plan
 * PostgreSQL keeps for each (the one the node's prepared statements run) has no sequential scan of
 * {@code gateway.requests}. A condition no partial index answers (such as {@code state IN ('queued',
 * 'dispatched')}) made one, and cost 7.9 ms of PostgreSQL CPU per round trip.
 */
class HotStatementPlansTest {

  private static StoreFixture db;

  @BeforeAll
  static void start() {
    db = StoreFixture.start(1);
    // a long history: 3 agents, 30,000 finished requests
    await(db.pool().query("INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, content, state)"
      + " SELECT gen_random_uuid(), 'agent-' || (i % 3), 'conv-' || (i % 3), gen_random_uuid(), 'tester', 'k-' || i, 'hello', 'done'"
      + " FROM generate_series(1, 30000) i").execute());
    await(db.pool().query("ANALYZE gateway.requests").execute());
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void aClientsMessageAndItsDispatchReadNoAgentsWholeHistory() {
    assertThat(genericPlan(LedgerStore.ENQUEUE_WITH_INBOUND, 21)).doesNotContain("Seq Scan on requests");
  }

  @Test
  void theDispatchOfAQueuedRequestReadsNoAgentsWholeHistory() {
    assertThat(genericPlan(RequestStore.DISPATCH_NEXT, 3)).doesNotContain("Seq Scan on requests");
  }

  @Test
  void anAgentsBatchOfEventsReadsNoAgentsWholeHistory() {
    assertThat(genericPlan(LedgerStore.APPEND_FOR_REQUEST, 16)).doesNotContain("Seq Scan on requests");
  }

  /** The plan PostgreSQL keeps for {@code sql} as a prepared statement of {@code params} parameters. */
  private static String genericPlan(String sql, int params) {
    SqlConnection conn = await(db.pool().getConnection());
    try {
      await(conn.query("SET plan_cache_mode = force_generic_plan").execute());
      await(conn.query("PREPARE hot AS " + sql).execute());
      String nulls = String.join(", ", Collections.nCopies(params, "NULL"));
      String plan = StreamSupport.stream(await(conn.query("EXPLAIN EXECUTE hot(" + nulls + ")").execute()).spliterator(), false)
        .map(Row::toJson).map(j -> j.getString("QUERY PLAN")).collect(Collectors.joining("\n"));
      assertThat(plan).as("a plan").contains("requests");
      return plan;
    } finally {
      await(conn.query("DEALLOCATE ALL").execute());
      await(conn.query("RESET plan_cache_mode").execute());
      conn.close();
    }
  }
}
