package dev.conclave.e2e.bench;

import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;

import java.time.Duration;
import java.util.Locale;
import dev.conclave.platform.testing.Await;

/**
 * An old conversation ledger, written by SQL in a few big INSERT … SELECTs: conversations of
 * {@link #REQUESTS_PER_CONVERSATION} finished requests each, every request a copy of one the
 * workload really finished (its message, text chunks and done, same kinds, texts and payloads), one
 * a second from 400 days ago, so that all of it is past any retention window of less than a year
 * except what retention always keeps (each conversation's latest {@code keep} events, and the
 * requests those name).
 *
 * @param conversations conversations seeded
 * @param eventsPerRequest ledger events of the template request
 * @param deletableEvents events retention deletes
 * @param deletableRequests requests retention deletes
 */
record LedgerSeed(int conversations, int eventsPerRequest, long deletableEvents, long deletableRequests) {

  static final int REQUESTS_PER_CONVERSATION = 2000;
  /** Events per INSERT, about: a progress line after each. */
  private static final long CHUNK_EVENTS = 500_000;

  /** Seeds at least {@code events} deletable events, the node keeping {@code keep} events per conversation. */
  static LedgerSeed write(Pool pool, long events, int keep, int agents) {
    long start = System.nanoTime();
    SqlConnection conn = Await.await(pool.getConnection(), Duration.ofSeconds(30), "seed connection");
    try {
      BenchDb.rows(conn, "TemplateRequest");
      BenchDb.rows(conn, "TemplateEvents");
      Row template = BenchDb.row(conn, "Template");
      int k = (int) template.getLong("k").longValue();
      if (k == 0) {
        throw new IllegalStateException("no finished request with ledger events to copy: did the workload run?");
      }
      long perConversation = (long) REQUESTS_PER_CONVERSATION * k - keep;
      if (perConversation <= 0) {
        throw new IllegalStateException("keep (" + keep + ") leaves nothing of a seeded conversation to delete");
      }
      int conversations = (int) ((events + perConversation - 1) / perConversation);
      long keptRequests = (keep + k - 1) / k;
      LedgerSeed seed = new LedgerSeed(conversations, k, conversations * perConversation,
        conversations * (REQUESTS_PER_CONVERSATION - keptRequests));
      System.out.printf(Locale.ROOT, "seed: template request of %d events (%s), %d bytes of rows; %d conversations of %d requests: "
          + "%d events, %d to delete%n", k, template.getString("kinds"), template.getLong("bytes"), conversations, REQUESTS_PER_CONVERSATION,
        (long) conversations * REQUESTS_PER_CONVERSATION * k, seed.deletableEvents());
      int step = (int) Math.max(1, CHUNK_EVENTS / ((long) REQUESTS_PER_CONVERSATION * k));
      for (int first = 1; first <= conversations; first += step) {
        int last = Math.min(conversations, first + step - 1);
        Object[] range = {"first", first, "last", last, "requests", REQUESTS_PER_CONVERSATION, "k", k, "agents", agents};
        BenchDb.rows(conn, "SeedConversations", range);
        BenchDb.rows(conn, "SeedRequests", "first", first, "last", last, "requests", REQUESTS_PER_CONVERSATION, "agents", agents);
        BenchDb.rows(conn, "SeedEvents", "first", first, "last", last, "requests", REQUESTS_PER_CONVERSATION, "k", k);
        System.out.printf(Locale.ROOT, "seed: %d / %d conversations, %d events, %.0f s%n", last, conversations,
          (long) last * REQUESTS_PER_CONVERSATION * k, (System.nanoTime() - start) / 1e9);
      }
      BenchDb.command(conn, "VACUUM ANALYZE gateway.conversations, gateway.requests, gateway.events");
      System.out.printf(Locale.ROOT, "seed: written and vacuumed in %.0f s%n", (System.nanoTime() - start) / 1e9);
      return seed;
    } finally {
      Await.await(conn.close(), Duration.ofSeconds(30), "seed connection close");
    }
  }
}
