package dev.conclave.e2e.bench;

import com.google.protobuf.CodedInputStream;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a traced benchmark node exports its spans: an OTLP/HTTP receiver ({@code POST /v1/traces},
 * protobuf) that answers every export at once and keeps nothing but counts, so the node pays what it
 * would pay a real collector (making spans, batching, encoding, sending) and the receiver little. It
 * counts spans by walking ExportTraceServiceRequest's wire format (resource_spans 1 → scope_spans 2 →
 * spans 2) without decoding them.
 */
final class DiscardingOtlpReceiver implements AutoCloseable {

  private final HttpServer server;
  private final LongAdder spans = new LongAdder();
  private final LongAdder exports = new LongAdder();
  private final LongAdder bytes = new LongAdder();

  DiscardingOtlpReceiver(Vertx vertx) {
    server = vertx.createHttpServer().requestHandler(request -> request.body().onSuccess(body -> {
      exports.increment();
      bytes.add(body.length());
      try {
        spans.add(count(CodedInputStream.newInstance(body.getBytes()), 1));
        request.response().putHeader("content-type", "application/x-protobuf").end();
      } catch (IOException e) {
        request.response().setStatusCode(400).end();
      }
    })).listen(0, "127.0.0.1").await();
  }

  String endpoint() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  long spans() {
    return spans.sum();
  }

  long exports() {
    return exports.sum();
  }

  long bytes() {
    return bytes.sum();
  }

  /** Spans under a message at {@code depth} (1 the request, 2 ResourceSpans, 3 ScopeSpans). */
  private static long count(CodedInputStream in, int depth) throws IOException {
    long n = 0;
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      int field = tag >>> 3;
      boolean child = depth == 1 ? field == 1 : field == 2;
      if (!child) {
        in.skipField(tag);
      } else if (depth == 3) {
        in.skipField(tag);
        n++;
      } else {
        int limit = in.pushLimit(in.readRawVarint32());
        n += count(in, depth + 1);
        in.popLimit(limit);
      }
    }
    return n;
  }

  @Override
  public void close() {
    server.close().await();
  }
}
