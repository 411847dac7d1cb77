package dev.conclave.e2e.observability;

import com.google.protobuf.CodedInputStream;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

import java.io.IOException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A small OTLP/HTTP trace receiver for tests: {@code POST /v1/traces} with an
 * {@code ExportTraceServiceRequest} in protobuf, as the nodes' OTLP exporter sends it; keeps each
 * span's ids, name and string attributes. It reads the few fields it needs straight from the wire
 * format (field numbers of opentelemetry-proto's trace.proto), not through generated classes.
 */
final class OtlpReceiver implements AutoCloseable {

  /** A received span; ids in lower-case hex, as W3C trace context writes them. */
  record ReceivedSpan(String traceId, String spanId, String parentSpanId, String name, int kind, Map<String, String> attributes,
                      java.util.List<String> events) {
  }

  private final HttpServer server;
  private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

  OtlpReceiver(Vertx vertx) {
    server = vertx.createHttpServer().requestHandler(request -> request.body().onSuccess(body -> {
      try {
        request(CodedInputStream.newInstance(body.getBytes()));
        request.response().putHeader("content-type", "application/x-protobuf").end();
      } catch (IOException | RuntimeException e) {
        request.response().setStatusCode(400).end();
      }
    })).listen(0, "127.0.0.1").await();
  }

  int port() {
    return server.actualPort();
  }

  List<ReceivedSpan> spans() {
    return List.copyOf(spans);
  }

  /** ExportTraceServiceRequest: 1 resource_spans. */
  private void request(CodedInputStream in) throws IOException {
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag >>> 3 == 1) {
        nested(in, this::resourceSpans);
      } else {
        in.skipField(tag);
      }
    }
  }

  /** ResourceSpans: 2 scope_spans. */
  private void resourceSpans(CodedInputStream in) throws IOException {
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag >>> 3 == 2) {
        nested(in, this::scopeSpans);
      } else {
        in.skipField(tag);
      }
    }
  }

  /** ScopeSpans: 2 spans. */
  private void scopeSpans(CodedInputStream in) throws IOException {
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag >>> 3 == 2) {
        nested(in, this::span);
      } else {
        in.skipField(tag);
      }
    }
  }

  /** Span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 9 attributes, 11 events (their names). */
  private void span(CodedInputStream in) throws IOException {
    String traceId = "";
    String spanId = "";
    String parent = "";
    String name = "";
    int kind = 0;
    Map<String, String> attributes = new HashMap<>();
    java.util.List<String> events = new java.util.ArrayList<>();
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      switch (tag >>> 3) {
        case 1 -> traceId = HexFormat.of().formatHex(in.readByteArray());
        case 2 -> spanId = HexFormat.of().formatHex(in.readByteArray());
        case 4 -> parent = HexFormat.of().formatHex(in.readByteArray());
        case 5 -> name = in.readString();
        case 6 -> kind = in.readEnum();
        case 9 -> nested(in, kv -> keyValue(kv, attributes));
        case 11 -> nested(in, event -> events.add(eventName(event)));
        default -> in.skipField(tag);
      }
    }
    spans.add(new ReceivedSpan(traceId, spanId, parent, name, kind, attributes, java.util.List.copyOf(events)));
  }

  /** Span.Event: 2 name. */
  private static String eventName(CodedInputStream in) throws IOException {
    String name = "";
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag >>> 3 == 2) {
        name = in.readString();
      } else {
        in.skipField(tag);
      }
    }
    return name;
  }

  /** KeyValue: 1 key, 2 value (AnyValue: 1 string_value; other types are left out). */
  private static void keyValue(CodedInputStream in, Map<String, String> into) throws IOException {
    String key = "";
    String[] value = {null};
    for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
      if (tag >>> 3 == 1) {
        key = in.readString();
      } else if (tag >>> 3 == 2) {
        nested(in, any -> {
          for (int t = any.readTag(); t != 0; t = any.readTag()) {
            if (t >>> 3 == 1) {
              value[0] = any.readString();
            } else {
              any.skipField(t);
            }
          }
        });
      } else {
        in.skipField(tag);
      }
    }
    if (value[0] != null) {
      into.put(key, value[0]);
    }
  }

  private interface Reader {
    void read(CodedInputStream in) throws IOException;
  }

  private static void nested(CodedInputStream in, Reader reader) throws IOException {
    int limit = in.pushLimit(in.readRawVarint32());
    reader.read(in);
    in.popLimit(limit);
  }

  @Override
  public void close() {
    server.close().await();
  }
}
