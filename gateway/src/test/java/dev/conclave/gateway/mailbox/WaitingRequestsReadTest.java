package dev.conclave.gateway.mailbox;

import dev.conclave.gateway.support.StoreFixture;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.sqlclient.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static dev.conclave.gateway.mailbox.WaitingRequestsTest.awaitGauge;
import static dev.conclave.gateway.mailbox.WaitingRequestsTest.gauge;
import static dev.conclave.gateway.support.GatewayFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read behind the waiting-requests gauges: it finds the waiting requests through their partial
 * index, not by reading a long history of finished ones (every gateway node runs it every 15 s), and
 * a read that fails neither stops the reads nor leaves the last numbers shown for ever.
 */
class WaitingRequestsReadTest {

  private static final int WAITING = 3;
  private static StoreFixture db;

  @BeforeAll
  static void start() {
    db = StoreFixture.start(2);
    // a long history, 30,000 finished requests, and three waiting for an agent that is not there
    await(db.pool().query("INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, content, state)"
      + " SELECT gen_random_uuid(), 'agent-' || (i % 3), 'conv-' || (i % 3), gen_random_uuid(), 'tester', 'k-' || i, 'hello', 'done'"
      + " FROM generate_series(1, 30000) i").execute());
    await(db.pool().query("INSERT INTO gateway.requests (id, agent_id, conversation_key, principal_id, sender, idempotency_key, content, state,"
      + " created_at) SELECT gen_random_uuid(), 'absent', 'absent', gen_random_uuid(), 'tester', 'w-' || i, 'hello', 'queued',"
      + " now() - i * interval '1 minute' FROM generate_series(1, " + WAITING + ") i").execute());
    await(db.pool().query("ANALYZE gateway.requests").execute());
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void theReadUsesTheQueuedRequestsIndexNotTheHistory() {
    String sql = SqlFile.of(WaitingRequests.class, "waiting_requests.sql").get("Waiting").sql();
    String plan = StreamSupport.stream(await(db.pool().query("EXPLAIN " + sql).execute()).spliterator(), false)
      .map(Row::toJson).map(j -> j.getString("QUERY PLAN")).collect(Collectors.joining("\n"));
    assertThat(plan).doesNotContain("Seq Scan on requests").contains("requests_queue");
  }

  @Test
  void aFailedReadShowsNaNOnceTheLastGoodReadIsStaleAndTheNextGoodReadShowsAgain() {
    SimpleMeterRegistry metrics = new SimpleMeterRegistry();
    WaitingRequests waiting = new WaitingRequests(db.vertx(), db.pool(), Duration.ofMillis(100)).register(metrics);
    assertThat(gauge(metrics, MetricNames.GATEWAY_REQUESTS_WAITING)).as("before the first read").isNaN();
    waiting.start();
    try {
      awaitGauge(metrics, MetricNames.GATEWAY_REQUESTS_WAITING, v -> v == WAITING, "the waiting requests read");
      // the oldest was sent three minutes ago
      assertThat(gauge(metrics, MetricNames.GATEWAY_REQUESTS_OLDEST_WAITING)).isBetween(180.0, 300.0);

      // every read fails while the table is away
      await(db.pool().query("ALTER TABLE gateway.requests RENAME TO requests_away").execute());
      try {
        awaitGauge(metrics, MetricNames.GATEWAY_REQUESTS_WAITING, Double::isNaN, "the count once stale");
        assertThat(gauge(metrics, MetricNames.GATEWAY_REQUESTS_OLDEST_WAITING)).as("the age once stale").isNaN();
      } finally {
        await(db.pool().query("ALTER TABLE gateway.requests_away RENAME TO requests").execute());
      }
      // the timer survived the failures: the next good read shows again
      awaitGauge(metrics, MetricNames.GATEWAY_REQUESTS_WAITING, v -> v == WAITING, "the count after the table is back");
      assertThat(gauge(metrics, MetricNames.GATEWAY_REQUESTS_OLDEST_WAITING)).isBetween(180.0, 300.0);
    } finally {
      waiting.stop();
    }
  }
}
