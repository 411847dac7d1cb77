package dev.conclave.gateway.export;

import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.support.StoreFixture;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import static dev.conclave.gateway.support.GatewayFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The export reads its pages lazily: against a client that stops reading, it stops reading the
 * ledger once the response's write queue is full, so the node holds about a page of a large
 * conversation, not the conversation; when the client reads again, it goes on and every event
 * arrives once, in order. A real HTTP server and client, and the real ledger in PostgreSQL, with
 * small socket buffers so that "full" comes long before the end.
 */
class ConversationExportTest {

  private static final int PAGE = 10;
  private static final int EVENTS = 1500;
  private static final String FILLER = "x".repeat(4096);

  private static StoreFixture db;
  private static Vertx vertx;
  private static LedgerStore ledger;
  private static String key;

  @BeforeAll
  static void start() {
    db = StoreFixture.start(2);
    vertx = db.vertx();
    ledger = db.ledger();
    key = "export-big-" + UUID.randomUUID();
    for (int from = 1; from <= EVENTS; from += 100) {
      List<LedgerEntry> entries = new ArrayList<>();
      for (int i = from; i < from + 100 && i <= EVENTS; i++) {
        entries.add(Entries.inbound(UUID.randomUUID(), "tester", UUID.randomUUID(), i + " " + FILLER, Instant.now()));
      }
      await(db.pool().withTransaction(tx -> ledger.append(tx, key, "agent-" + key, entries)));
    }
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void aClientThatStopsReadingStopsTheExportReadingPagesAndAllArrivesWhenItReadsAgain() throws Exception {
    AtomicInteger pagesRead = new AtomicInteger();
    ConversationExport export = new ConversationExport((k, after, limit) -> {
      pagesRead.incrementAndGet();
      return ledger.after(k, after, limit);
    }, PAGE);
    HttpServer server = await(vertx.createHttpServer(new HttpServerOptions().setSendBufferSize(16 * 1024))
      .requestHandler(req -> export.stream(req.response(), key, 0))
      .listen(0, "127.0.0.1"));
    HttpClient client = vertx.createHttpClient(new HttpClientOptions().setReceiveBufferSize(16 * 1024));
    try {
      Promise<Void> ended = Promise.promise();
      Buffer body = Buffer.buffer();
      HttpClientResponse response = await(client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", "/")
        .compose(req -> req.send()).map(r -> {
          r.pause();
          r.handler(body::appendBuffer);
          r.endHandler(v -> ended.complete());
          r.exceptionHandler(ended::tryFail);
          return r;
        }));
      assertThat(response.getHeader("content-type")).isEqualTo(ConversationExport.CONTENT_TYPE);

      int total = EVENTS / PAGE + 1;
      int settled = awaitSettled(pagesRead);
      assertThat(settled).as("pages read while the client reads nothing (of %d)", total).isGreaterThan(0).isLessThan(total / 3);

      response.resume();
      await(ended.future());
      List<Long> seqs = new ArrayList<>();
      for (String line : body.toString().split("\n")) {
        seqs.add(new io.vertx.core.json.JsonObject(line).getLong("seq"));
      }
      assertThat(seqs).containsExactlyElementsOf(LongStream.rangeClosed(1, EVENTS).boxed().toList());
      assertThat(pagesRead.get()).as("each page read once, and one more that found the end").isEqualTo(total);
    } finally {
      await(client.close());
      await(server.close());
    }
  }

  @Test
  void aPageThatCannotBeReadCutsTheConnectionSoThePartialExportNeverLooksComplete() throws Exception {
    AtomicInteger pagesRead = new AtomicInteger();
    ConversationExport export = new ConversationExport((k, after, limit) -> pagesRead.incrementAndGet() == 3
      ? io.vertx.core.Future.failedFuture(new IllegalStateException("the database went away"))
      : ledger.after(k, after, limit), PAGE);
    HttpServer server = await(vertx.createHttpServer().requestHandler(req -> export.stream(req.response(), key, 0))
      .listen(0, "127.0.0.1"));
    HttpClient client = vertx.createHttpClient();
    try {
      Promise<Void> ended = Promise.promise();
      Buffer body = Buffer.buffer();
      await(client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", "/").compose(req -> req.send()).map(r -> {
        r.handler(body::appendBuffer);
        r.endHandler(v -> ended.tryComplete());
        r.exceptionHandler(ended::tryFail);
        return r;
      }));
      Throwable cut = ended.future().transform(ar -> io.vertx.core.Future.succeededFuture(ar.cause())).await(15, TimeUnit.SECONDS);
      assertThat(cut).as("the response did not end cleanly after %s bytes", body.length()).isNotNull();
      String whole = body.toString().substring(0, body.toString().lastIndexOf('\n') + 1);
      List<Long> seqs = new ArrayList<>();
      for (String line : whole.isEmpty() ? new String[0] : whole.split("\n")) {
        seqs.add(new io.vertx.core.json.JsonObject(line).getLong("seq"));
      }
      assertThat(seqs).as("the whole lines before the cut: the two pages read, in order, where the client resumes from")
        .isEqualTo(LongStream.rangeClosed(1, seqs.size()).boxed().toList()).hasSizeLessThanOrEqualTo(2 * PAGE);
    } finally {
      await(client.close());
      await(server.close());
    }
  }

  /** The count once it has not moved for a second (or after 30 s, whatever it is then). */
  private static int awaitSettled(AtomicInteger count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int last = -1;
    long since = System.nanoTime();
    while (System.nanoTime() < deadline) {
      int now = count.get();
      if (now != last) {
        last = now;
        since = System.nanoTime();
      } else if (now > 0 && System.nanoTime() - since > TimeUnit.SECONDS.toNanos(1)) {
        return now;
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    return count.get();
  }
}
