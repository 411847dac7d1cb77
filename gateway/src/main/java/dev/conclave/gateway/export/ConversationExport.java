package dev.conclave.gateway.export;

import dev.conclave.gateway.ledger.LedgerEvent;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

import java.util.List;

/**
 * Writes a conversation's ledger to an HTTP response as NDJSON ({@link LedgerLines}, one event a
 * line, oldest first), read page by page with a keyset cursor (the last sequence number written).
 * The next page is read only once the response's write queue has room: a client that reads slowly
 * holds the export at one page in memory, not its whole conversation. Every line is an event, so a
 * client that lost the connection resumes with {@code after=} the last {@code seq} it read.
 */
public final class ConversationExport {

  public static final String CONTENT_TYPE = "application/x-ndjson";

  /** One keyset page: the events with {@code seq > after}, in order, at most {@code limit}. */
  @FunctionalInterface
  public interface Pages {
    Future<List<LedgerEvent>> after(String conversationKey, long after, int limit);
  }

  private final Pages pages;
  private final int pageSize;

  public ConversationExport(Pages pages, int pageSize) {
    if (pageSize < 1) {
      throw new IllegalArgumentException("pageSize must be at least 1");
    }
    this.pages = pages;
    this.pageSize = pageSize;
  }

  /**
   * Streams the events after {@code after} to {@code response} and ends it. Completes when the
   * response ended or a page found the client gone (a client that goes away while the export waits
   * for the write queue to drain leaves it waiting on a closed response, holding nothing else);
   * fails when a page could not be read. A failure before
   * anything was written leaves the response to the caller (to answer with a problem); after that,
   * the connection is reset, so the client sees a cut stream, never a clean end of a partial export.
   */
  public Future<Void> stream(HttpServerResponse response, String conversationKey, long after) {
    response.setChunked(true).putHeader("content-type", CONTENT_TYPE);
    Promise<Void> done = Promise.promise();
    next(response, conversationKey, after, done);
    return done.future();
  }

  private void next(HttpServerResponse response, String key, long after, Promise<Void> done) {
    if (response.closed()) {
      done.tryComplete();
      return;
    }
    pages.after(key, after, pageSize).onComplete(ar -> {
      if (ar.failed()) {
        if (response.headWritten()) {
          response.reset();
        }
        done.tryFail(ar.cause());
        return;
      }
      List<LedgerEvent> events = ar.result();
      if (response.closed()) {
        done.tryComplete();
        return;
      }
      if (!events.isEmpty()) {
        Buffer page = Buffer.buffer();
        events.forEach(e -> page.appendBuffer(LedgerLines.line(e)));
        response.write(page);
      }
      if (events.size() < pageSize) {
        response.end().onComplete(v -> done.tryComplete());
        return;
      }
      long last = events.get(events.size() - 1).seq();
      if (response.writeQueueFull()) {
        response.drainHandler(v -> {
          response.drainHandler(null);
          next(response, key, last, done);
        });
      } else {
        next(response, key, last, done);
      }
    });
  }
}
