package dev.conclave.gateway.store;

import dev.conclave.gateway.mailbox.Mailbox;
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

  /** A client's message's statement, beside the mailbox that runs it. */
  private static final dev.conclave.platform.db.sql.NamedStatement ENQUEUE_WITH_INBOUND =
    dev.conclave.platform.db.sql.SqlFile.of(Mailbox.class, "mailbox.sql").get("EnqueueWithInbound");

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
    assertThat(genericPlan(ENQUEUE_WITH_INBOUND.sql(), 23)).doesNotContain("Seq Scan on requests");
  }

  @Test
  void theDispatchOfAQueuedRequestReadsNoAgentsWholeHistory() {
    assertThat(genericPlan(RequestStore.DISPATCH_NEXT.sql(), 3)).doesNotContain("Seq Scan on requests");
  }

  @Test
  void anAgentsBatchOfEventsReadsNoAgentsWholeHistory() {
    assertThat(genericPlan(LedgerStore.APPEND_FOR_REQUEST.sql(), 16)).doesNotContain("Seq Scan on requests");
  }

  /**
   * A client's message, to an agent by its id and through a binding, from an admin and from a member,
   * is kept as a prepared statement,
   * planned a few times and then run with the kept generic plan. Once it grew past the 2,048 characters
   * the client keeps prepared by default, and PostgreSQL parsed and planned it at every execution:
   * 458 µs a message.
   */
  @Test
  void aClientsMessageRunsTheKeptPlanInsteadOfPlanningEachTime() {
    String agent = "agent-plans";
    java.util.UUID principal = java.util.UUID.randomUUID();
    await(db.pool().preparedQuery("INSERT INTO auth.principals (id, type, display_name, status) VALUES ($1, 'agent', 'plans', 'approved')")
      .execute(io.vertx.sqlclient.Tuple.of(principal)));
    await(db.pool().preparedQuery("INSERT INTO gateway.agents (agent_id, principal_id, instance_id, epoch, lifecycle)"
      + " VALUES ($1, $2, 'i-plans', 1, 'running')").execute(io.vertx.sqlclient.Tuple.of(agent, principal)));
    await(db.pool().preparedQuery("INSERT INTO gateway.bindings (id, frontend, channel_id, agent_id) VALUES (gen_random_uuid(), 'chat', 'plans', $1)")
      .execute(io.vertx.sqlclient.Tuple.of(agent)));
    SqlConnection conn = await(db.pool().getConnection());
    try {
      for (int i = 0; i < 20; i++) {
        String key = i % 2 == 0 ? agent : "chat:plans";
        java.util.UUID id = java.util.UUID.randomUUID();
        // an admin's message, and the agent's own principal's (a member's access is checked)
        boolean admin = i % 4 < 2;
        var request = new Mailbox.NewRequest(id, admin ? java.util.UUID.randomUUID() : principal, "tester", "plans-" + i, "hello",
          java.util.Optional.empty());
        var inbound = dev.conclave.gateway.ledger.Entries.inbound(id, "tester", request.principalId(), "hello", java.time.Instant.now());
        var dispatch = i % 3 == 0 ? java.util.Optional.<Mailbox.DispatchTo>empty() : java.util.Optional.of(new Mailbox.DispatchTo(1, "node-a"));
        var enqueued = await(Mailbox.enqueueWithInbound(conn, db.ledger(), key, agent, java.util.List.of(inbound), request, dispatch, admin));
        assertThat(enqueued.routed() && enqueued.allowed()).isTrue();
        await(conn.query("UPDATE gateway.requests SET state = 'done' WHERE agent_id = 'agent-plans'").execute());
      }
      var kept = await(conn.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = '"
        + ENQUEUE_WITH_INBOUND.sql().replace("'", "''") + "'").execute());
      assertThat(kept.size()).as("the statement is kept prepared on its connection").isEqualTo(1);
      Row plans = kept.iterator().next();
      assertThat(plans.getLong("custom_plans")).as("custom plans of 20 executions").isLessThanOrEqualTo(5);
      assertThat(plans.getLong("generic_plans")).isGreaterThanOrEqualTo(15);
    } finally {
      conn.close();
    }
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
