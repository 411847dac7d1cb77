package dev.conclave.node.fuzz;

import com.google.protobuf.Empty;
import com.google.protobuf.MessageLite;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.node.fuzz.FuzzNode.Caller;
import dev.conclave.platform.packs.schema.Schemas;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.RouteTable.Route;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.CreateBindingRequest;
import dev.conclave.proto.coven.CreatePrincipalRequest;
import dev.conclave.proto.coven.CreateTokenRequest;
import dev.conclave.proto.coven.DeleteBindingRequest;
import dev.conclave.proto.coven.DeletePrincipalRequest;
import dev.conclave.proto.coven.ExecuteToolResponse;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.ListAgentsRequest;
import dev.conclave.proto.coven.ListBindingsRequest;
import dev.conclave.proto.coven.ListPrincipalsRequest;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.RegisterAgentRequest;
import dev.conclave.proto.coven.RegisterClientRequest;
import dev.conclave.proto.coven.StreamEventsRequest;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.UpdateBindingRequest;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.StreamResetException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.GZIPOutputStream;

/**
 * gRPC frames on every method of the route table (all three roles), the open health and reflection
 * services and unknown methods, sent as raw HTTP/2 requests (h2c, prior knowledge) so that nothing
 * on the client side tidies them up: 5-byte-prefixed frames with generated flags, declared lengths
 * and payloads (mutated valid messages, hostile protobuf, random bytes, oversized and gzip bombs),
 * truncated frames, compression with and without {@code grpc-encoding}, wrong content types, odd
 * metadata. Every call must end with a status other than INTERNAL or UNKNOWN (and not in a stream
 * reset a client would read as INTERNAL), unary calls must end, no status message may name a Java
 * class, and nothing may be logged with a stack trace or at ERROR.
 */
class GrpcFuzzTest {

  private static final String SURFACE = "grpc";
  /** Methods whose response streams may stay open on a well-formed request: not answering at once is no finding. */
  private static final Set<String> STREAMING = Set.of("AgentStream", "StreamEvents", "Register", "Watch", "ServerReflectionInfo");
  /** RST_STREAM codes a gRPC client reads as something other than INTERNAL: CANCEL, REFUSED_STREAM, ENHANCE_YOUR_CALM. */
  private static final Set<Long> ACCEPTABLE_RESETS = Set.of(8L, 7L, 11L);

  private final FuzzNode f = FuzzNode.get();
  private final Strays strays = new Strays();
  private final HttpClient h2 = f.vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2)
    .setHttp2ClearTextUpgrade(false).setDefaultHost("127.0.0.1").setDefaultPort(f.node.grpcPort()), new PoolOptions().setHttp2MaxSize(1));

  /** One length-prefixed message as sent: its compressed-flag byte, the length it declares (null: its real one), its bytes. */
  record Frame(int flag, Long declared, byte[] payload) {
    @Override
    public String toString() {
      return "[flag " + flag + (declared == null ? "" : ", declares " + declared) + ", " + payload.length + " bytes " + Hostile.show(payload) + "]";
    }
  }

  /** One generated call. */
  record GrpcCase(String method, String path, Caller caller, String contentType, String encoding, Map<String, String> metadata,
                  List<Frame> frames, byte[] tail) {

    byte[] body() {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (Frame fr : frames) {
        out.write(fr.flag());
        long length = fr.declared() == null ? fr.payload().length : fr.declared();
        out.writeBytes(ByteBuffer.allocate(4).putInt((int) length).array());
        out.writeBytes(fr.payload());
      }
      out.writeBytes(tail);
      return out.toByteArray();
    }

    @Override
    public String toString() {
      return "POST " + Findings.abbreviate(path, 200) + " as " + caller + ", content-type " + contentType + ", grpc-encoding " + encoding
        + (metadata.isEmpty() ? "" : ", metadata " + metadata) + ", frames " + frames + (tail.length == 0 ? "" : ", then " + Hostile.show(tail));
    }
  }

  /** How a call went. */
  record Outcome(int http, MultiMap headers, MultiMap trailers, byte[] body, String failure, Long reset, boolean open) {
    String grpcStatus() {
      return get("grpc-status");
    }

    String grpcMessage() {
      return get("grpc-message");
    }

    private String get(String name) {
      String s = trailers == null ? null : trailers.get(name);
      if (s == null && headers != null) {
        s = headers.get(name);
      }
      if (s == null) {
        s = webTrailers().get(name);
      }
      return s;
    }

    /** gRPC-Web sends its trailers in the body: a frame flagged 0x80 holding "name:value" lines. */
    Map<String, String> webTrailers() {
      Map<String, String> out = new LinkedHashMap<>();
      String type = headers == null ? null : headers.get("content-type");
      if (body == null || type == null || !type.startsWith("application/grpc-web")) {
        return out;
      }
      byte[] bytes = body;
      if (type.startsWith("application/grpc-web-text")) {
        // each message is base64 on its own (padded), so the body is a run of base64 chunks
        ByteArrayOutputStream decoded = new ByteArrayOutputStream();
        try {
          for (String chunk : new String(body, StandardCharsets.US_ASCII).replaceAll("\\s", "").split("(?<==)(?=[^=])")) {
            decoded.writeBytes(java.util.Base64.getDecoder().decode(chunk));
          }
        } catch (IllegalArgumentException e) {
          return out;
        }
        bytes = decoded.toByteArray();
      }
      ByteBuffer b = ByteBuffer.wrap(bytes);
      while (b.remaining() >= 5) {
        int flag = b.get() & 0xff;
        int length = b.getInt();
        if (length < 0 || length > b.remaining()) {
          break;
        }
        byte[] content = new byte[length];
        b.get(content);
        if ((flag & 0x80) != 0) {
          for (String line : new String(content, StandardCharsets.UTF_8).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
              out.put(line.substring(0, colon).trim().toLowerCase(), line.substring(colon + 1).trim());
            }
          }
        }
      }
      return out;
    }
  }

  @Property(tries = 2000, seed = FuzzSeeds.SEED, shrinking = ShrinkingMode.BOUNDED, generation = GenerationMode.RANDOMIZED)
  void everyMethodEndsMalformedFramesWithAPreciseStatus(@ForAll("calls") GrpcCase c) {
    strays.collect(f.logs);
    boolean streaming = STREAMING.contains(c.method().substring(c.method().indexOf('/') + 1));
    Outcome o = call(c, streaming ? 300 : 3000);
    Findings found = new Findings(SURFACE, c.method(), c);
    if (o.open()) {
      if (!streaming) {
        found.add("a unary call was neither answered nor ended within 3 s", "HTTP " + o.http() + ", headers " + o.headers());
      }
    } else if (o.reset() != null) {
      if (!ACCEPTABLE_RESETS.contains(o.reset())) {
        found.add("stream reset with HTTP/2 error " + o.reset() + " (clients read INTERNAL)", o.failure());
      }
    } else if (o.failure() != null) {
      found.add("the call failed on the wire: " + o.failure().replaceAll("[0-9]+", "N"), o.failure());
    } else if (o.http() >= 500) {
      found.add("HTTP " + o.http() + " (content-type " + c.contentType() + ")", "headers " + o.headers());
    } else if (o.http() == 200) {
      String status = o.grpcStatus();
      if (status == null) {
        found.add("the call ended without a grpc-status", "headers " + o.headers() + ", trailers " + o.trailers() + ", body "
          + Hostile.show(o.body()));
      } else if (status.equals("0") && !c.frames().isEmpty() && c.frames().get(0).flag() > 1 && c.contentType() != null
        && !c.contentType().startsWith("application/grpc-web-text")) {
        // nothing before it reached the service: the gRPC spec allows a compressed flag of 0 or 1 only
        found.add("a message with compressed flag " + c.frames().get(0).flag() + " was accepted", "headers " + o.headers());
      } else if (status.equals("13") || status.equals("2")) {
        String message = decode(o.grpcMessage());
        found.add("grpc-status " + (status.equals("13") ? "INTERNAL" : "UNKNOWN") + " "
          + (message == null ? "" : message.replaceAll("[0-9]+", "N").replaceAll("(?s)^([^:]{0,60}:?).*", "$1")), "grpc-message: " + message);
      }
    }
    if (o.headers() != null) {
      o.headers().forEach(h -> found.leaks("header " + h.getKey(), h.getKey().equals("grpc-message") ? decode(h.getValue()) : h.getValue()));
    }
    if (o.trailers() != null) {
      o.trailers().forEach(h -> found.leaks("trailer " + h.getKey(), h.getKey().equals("grpc-message") ? decode(h.getValue()) : h.getValue()));
    }
    o.webTrailers().forEach((k, v) -> found.leaks("gRPC-Web trailer " + k, k.equals("grpc-message") ? decode(v) : v));
    found.logs(f.logs.drain());
    found.close();
  }

  @AfterProperty
  void nodeIsStillWell() {
    try {
      strays.endOfProperty(SURFACE, f);
    } finally {
      h2.close();
    }
  }

  private Outcome call(GrpcCase c, long timeoutMs) {
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    AtomicReference<HttpClientRequest> request = new AtomicReference<>();
    AtomicReference<MultiMap> headers = new AtomicReference<>();
    AtomicBoolean ok = new AtomicBoolean();
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setURI(c.path());
    h2.request(options).onComplete(ar -> {
      if (ar.failed()) {
        done.complete(failure(ar.cause(), null));
        return;
      }
      HttpClientRequest req = ar.result();
      request.set(req);
      if (c.contentType() != null) {
        req.putHeader("content-type", c.contentType());
      }
      req.putHeader("te", "trailers");
      if (c.encoding() != null) {
        req.putHeader("grpc-encoding", c.encoding());
      }
      String authorization = f.authorization(c.caller());
      if (authorization != null) {
        req.putHeader("authorization", authorization);
      }
      c.metadata().forEach(req::putHeader);
      req.exceptionHandler(e -> done.complete(failure(e, headers.get())));
      req.response().onComplete(rr -> {
        if (rr.failed()) {
          done.complete(failure(rr.cause(), null));
          return;
        }
        var resp = rr.result();
        headers.set(resp.headers());
        resp.exceptionHandler(e -> done.complete(failure(e, resp.headers())));
        resp.body().onComplete(b -> done.complete(b.succeeded()
          ? new Outcome(resp.statusCode(), resp.headers(), resp.trailers(), b.result().getBytes(), null, null, false)
          : failure(b.cause(), resp.headers())));
      });
      req.end(Buffer.buffer(c.body())).onFailure(e -> done.complete(failure(e, headers.get())));
      ok.set(true);
    });
    try {
      return done.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return new Outcome(headers.get() == null ? 0 : 200, headers.get(), null, null, null, null, true);
    } catch (Exception e) {
      return new Outcome(0, null, null, null, e.toString(), null, false);
    } finally {
      HttpClientRequest req = request.get();
      if (req != null) {
        try {
          req.reset();
        } catch (RuntimeException ignored) {
          // already over
        }
      }
    }
  }

  private static Outcome failure(Throwable e, MultiMap headers) {
    if (e instanceof StreamResetException reset) {
      return new Outcome(0, headers, null, null, e.toString(), reset.getCode(), false);
    }
    return new Outcome(0, headers, null, null, e.toString(), null, false);
  }

  private static String decode(String percentEncoded) {
    if (percentEncoded == null) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < percentEncoded.length(); i++) {
      char ch = percentEncoded.charAt(i);
      if (ch == '%' && i + 2 < percentEncoded.length()) {
        try {
          out.write(Integer.parseInt(percentEncoded.substring(i + 1, i + 3), 16));
          i += 2;
          continue;
        } catch (NumberFormatException ignored) {
          // as it is
        }
      }
      out.write(ch);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  // ---- generation ------------------------------------------------------------------------------

  @Provide
  Arbitrary<GrpcCase> calls() {
    Map<String, Caller> methods = new LinkedHashMap<>();
    for (Route r : f.routes("grpc")) {
      methods.put(r.path(), r.audience() == Audience.PACKS ? Caller.PACK : r.audience() == Audience.AGENTS ? Caller.AGENT : Caller.ADMIN);
    }
    for (String open : List.of("grpc.health.v1.Health/Check", "grpc.health.v1.Health/Watch", "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo")) {
      methods.put(open, Caller.NOBODY);
    }
    methods.put("dev.conclave.NoSuchService/Nothing", Caller.ADMIN);
    methods.put("grpc.health.v1.Health/NoSuchMethod", Caller.NOBODY);
    return Arbitraries.of(new ArrayList<>(methods.keySet())).flatMap(method -> Combinators.combine(
        path(method), caller(methods.get(method)), contentType(), encoding(), metadata(), frames(method).list().ofMinSize(0).ofMaxSize(3), tail())
      .as((path, caller, ct, enc, md, frames, tail) -> new GrpcCase(method, path, caller, ct, enc, md, frames, tail)));
  }

  private static Arbitrary<String> path(String method) {
    return Arbitraries.frequencyOf(Tuple.of(20, Arbitraries.just("/" + method)),
      Tuple.of(1, Arbitraries.of("/", "//", "/" + method + "/", "/" + method.toLowerCase(), "/" + method.replace("/", "//"),
        "/" + method + "%00", "/" + method.substring(0, method.indexOf('/')), "/" + method + "?x=1", "/x/" + method, "/%zz/%zz")));
  }

  private static Arbitrary<Caller> caller(Caller right) {
    return Arbitraries.frequencyOf(Tuple.of(12, Arbitraries.just(right)),
      Tuple.of(1, Arbitraries.of(Caller.NOBODY, Caller.ADMIN, Caller.MEMBER, Caller.AGENT, Caller.PACK, Caller.MCP, Caller.BRIDGE,
        Caller.GARBAGE_BEARER, Caller.BASIC)));
  }

  private static Arbitrary<String> contentType() {
    return Arbitraries.frequencyOf(Tuple.of(14, Arbitraries.just("application/grpc")),
      Tuple.of(2, Arbitraries.of("application/grpc+proto", "application/grpc+json", "application/json", "text/plain", "application/grpc-web",
        "application/grpc-web-text", "application/grpc; charset=utf-8", "application/grpcx", "application/grpc+nonsense")),
      Tuple.of(1, Arbitraries.just(null)));
  }

  private static Arbitrary<String> encoding() {
    return Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.just(null)),
      Tuple.of(3, Arbitraries.just("gzip")),
      Tuple.of(2, Arbitraries.of("identity", "deflate", "snappy", "zstd", "br", "gzip, deflate", "GZIP", "nonsense", "")));
  }

  private static Arbitrary<Map<String, String>> metadata() {
    Arbitrary<Tuple.Tuple2<String, String>> entry = Arbitraries.of(
      Tuple.of("grpc-timeout", "1n"), Tuple.of("grpc-timeout", "0S"), Tuple.of("grpc-timeout", "99999999H"), Tuple.of("grpc-timeout", "abc"),
      Tuple.of("grpc-timeout", "-1m"), Tuple.of("grpc-timeout", "123456789012u"), Tuple.of("grpc-accept-encoding", "nonsense, , gzip"),
      Tuple.of("x-fuzz-bin", "!!!not base64!!!"), Tuple.of("x-fuzz-bin", "AAEC"), Tuple.of("grpc-message-type", "x"),
      Tuple.of("user-agent", "fuzz/\u00ff"), Tuple.of("grpc-previous-rpc-attempts", "-1"), Tuple.of("grpc-status", "0"),
      Tuple.of("x-conclave-caller", "forged"), Tuple.of("conclave-caller", "{\"admin\":true}"), Tuple.of("authorization-bin", "AAAA"));
    return Arbitraries.frequencyOf(Tuple.of(6, Arbitraries.just(Map.<String, String>of())),
      Tuple.of(1, entry.list().ofMinSize(1).ofMaxSize(3).map(l -> {
        Map<String, String> m = new LinkedHashMap<>();
        l.forEach(t -> m.put(t.get1(), t.get2()));
        return m;
      })));
  }

  private static Arbitrary<byte[]> tail() {
    return Arbitraries.frequencyOf(Tuple.of(8, Arbitraries.just(new byte[0])),
      Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(4)),
      Tuple.of(1, Arbitraries.of(new byte[] {0, 0, 0, 0, 10, 1, 2}, new byte[] {1, 0, 0, 0, 3, 1}, new byte[] {0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff})));
  }

  private Arbitrary<Frame> frames(String method) {
    byte[] valid = valid(method.substring(method.indexOf('/') + 1));
    List<byte[]> wellFormed = wellFormed(method.substring(method.indexOf('/') + 1), valid);
    Arbitrary<byte[]> payload = Arbitraries.frequencyOf(
      Tuple.of(5, edits().map(e -> apply(valid, e))),
      Tuple.of(2, wellFormed.size() == 1 ? Arbitraries.just(valid) : Arbitraries.of(wellFormed)),
      Tuple.of(3, Arbitraries.bytes().array(byte[].class).ofMaxSize(64)),
      Tuple.of(2, hostileProtobuf()),
      Tuple.of(1, Arbitraries.just(new byte[0])),
      Tuple.of(1, Arbitraries.integers().between(FuzzNode.MAX_MESSAGE_BYTES - 16, FuzzNode.MAX_MESSAGE_BYTES + 4096).map(n -> {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) 0x0a);
        return b;
      })));
    // a compressed flag: gzip of the payload (valid), or of many zeros (a bomb), or the payload as it is (not gzip at all)
    Arbitrary<Frame> compressed = Combinators.combine(payload, Arbitraries.of(0, 1, 2)).as((p, how) -> switch (how) {
      case 0 -> new Frame(1, null, gzip(p));
      case 1 -> new Frame(1, null, gzip(new byte[FuzzNode.MAX_MESSAGE_BYTES * 64]));
      default -> new Frame(1, null, p);
    });
    Arbitrary<Long> declared = Arbitraries.frequencyOf(Tuple.of(10, Arbitraries.just((Long) null)),
      Tuple.of(2, Arbitraries.of(0L, 1L, 4L, 65537L, 0x7fffffffL, 0x80000000L, 0xffffffffL)),
      Tuple.of(1, Arbitraries.longs().between(0, 0xffffffffL)));
    Arbitrary<Frame> plain = Combinators.combine(payload, declared).as((p, d) -> new Frame(0, d, p));
    Arbitrary<Frame> oddFlag = Combinators.combine(payload, Arbitraries.of(2, 3, 0x7f, 0x80, 0xff)).as((p, fl) -> new Frame(fl, null, p));
    return Arbitraries.frequencyOf(Tuple.of(10, plain), Tuple.of(3, compressed), Tuple.of(1, oddFlag));
  }

  /** An edit of a valid message's bytes: flip, set, delete or insert a byte, or cut the message short. */
  record Edit(int kind, int position, byte value) {
  }

  private static Arbitrary<List<Edit>> edits() {
    return Combinators.combine(Arbitraries.integers().between(0, 4), Arbitraries.integers().between(0, 4096), Arbitraries.bytes())
      .as(Edit::new).list().ofMinSize(1).ofMaxSize(4);
  }

  private static byte[] apply(byte[] valid, List<Edit> edits) {
    List<Byte> bytes = new ArrayList<>();
    for (byte b : valid) {
      bytes.add(b);
    }
    for (Edit e : edits) {
      int at = bytes.isEmpty() ? 0 : e.position() % (bytes.size() + 1);
      switch (e.kind()) {
        case 0 -> {
          if (at < bytes.size()) {
            bytes.set(at, (byte) (bytes.get(at) ^ (1 << (e.value() & 7))));
          }
        }
        case 1 -> {
          if (at < bytes.size()) {
            bytes.set(at, e.value());
          }
        }
        case 2 -> {
          if (at < bytes.size()) {
            bytes.remove(at);
          }
        }
        case 3 -> bytes.add(at, e.value());
        default -> {
          while (bytes.size() > at) {
            bytes.remove(bytes.size() - 1);
          }
        }
      }
    }
    byte[] out = new byte[bytes.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = bytes.get(i);
    }
    return out;
  }

  /** Protobuf that is well-framed at first sight but wrong inside: odd wire types, overlong varints, lying lengths, deep groups. */
  private static Arbitrary<byte[]> hostileProtobuf() {
    Arbitrary<byte[]> field = Combinators.combine(Arbitraries.of(1, 2, 3, 5, 7, 15, 16, 99, 1000, 536_870_911, 0),
        Arbitraries.integers().between(0, 7), Arbitraries.integers().between(0, 6)).as((number, wire, how) -> {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      varint(out, ((long) number << 3) | wire);
      switch (how) {
        case 0 -> varint(out, 1);
        case 1 -> out.writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
          (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x01});
        case 2 -> {
          varint(out, 1000);
          out.writeBytes("short".getBytes(StandardCharsets.UTF_8));
        }
        case 3 -> {
          varint(out, 2);
          out.writeBytes(new byte[] {(byte) 0xc3, 0x28});
        }
        case 4 -> {
          varint(out, 4);
          out.writeBytes(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80, 0});
        }
        case 5 -> varint(out, -1);
        default -> {
          // nothing after the tag
        }
      }
      return out.toByteArray();
    });
    Arbitrary<byte[]> fields = field.list().ofMinSize(1).ofMaxSize(4).map(l -> {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      l.forEach(out::writeBytes);
      return out.toByteArray();
    });
    // nested messages (field 1, length-delimited) or groups (field 1, start group) far deeper than any parser's limit
    Arbitrary<byte[]> deepGroups = Arbitraries.integers().between(50, 20_000).map(n -> {
      byte[] b = new byte[n];
      java.util.Arrays.fill(b, (byte) 0x0b);
      return b;
    });
    Arbitrary<byte[]> deepMessages = Arbitraries.integers().between(50, 3000).map(n -> {
      byte[] inner = new byte[0];
      for (int i = 0; i < n; i++) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x0a);
        varint(out, inner.length);
        out.writeBytes(inner);
        inner = out.toByteArray();
      }
      return inner;
    });
    return Arbitraries.frequencyOf(Tuple.of(4, fields), Tuple.of(1, deepGroups), Tuple.of(1, deepMessages));
  }

  private static void varint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7fL) != 0) {
      out.write((int) ((value & 0x7f) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }

  private static byte[] gzip(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Well-formed requests of the method whose values a handler must refuse as the caller's mistake
   * (issue 40): binding fields the table cannot hold or that could never be routed, tool schemas that
   * would fail on every call, reserved pack ids. Beside {@code valid}, which is one of them.
   */
  private static List<byte[]> wellFormed(String method, byte[] valid) {
    List<MessageLite> more = switch (method) {
      case "CreateBinding" -> List.of(binding("f".repeat(101), "fz-c", FuzzNode.AGENT_ID), binding("fuzz", "c".repeat(301), FuzzNode.AGENT_ID),
        binding("fuzz", "fz-c", "a".repeat(201)), binding("fu:zz", "fz-c", FuzzNode.AGENT_ID), binding("fuzz", "fz\u0000c", FuzzNode.AGENT_ID),
        binding("fuzz", "fz-c", "fz agent"), binding("fuzz\u202E", "fz-c", FuzzNode.AGENT_ID));
      case "UpdateBinding" -> List.of(UpdateBindingRequest.newBuilder().setId(UUID.randomUUID().toString()).setAgentId("a".repeat(201)).build());
      case "Register" -> List.of(pack("fz-grpc-pack", "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"http://127.0.0.1:9/s.json\"}}}"),
        pack("fz-grpc-pack", "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"file:///etc/passwd\"}}}"),
        pack("fz-grpc-pack", "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"[\"}}}"),
        pack("fz-grpc-pack", "{\"type\":\"object\",\"patternProperties\":{\"(\":{}}}"),
        pack("fz-grpc-pack", "{\"$schema\":\"http://127.0.0.1:9/meta\",\"type\":\"object\"}"),
        pack("fz-grpc-pack", "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/none\"}}}"),
        pack("BUILTIN:evil", Schemas.ANY_OBJECT), pack("builtin", Schemas.ANY_OBJECT));
      default -> List.of();
    };
    List<byte[]> out = new ArrayList<>(List.of(valid));
    more.forEach(m -> out.add(m.toByteArray()));
    return out;
  }

  private static CreateBindingRequest binding(String frontend, String channel, String agent) {
    return CreateBindingRequest.newBuilder().setFrontend(frontend).setChannelId(channel).setAgentId(agent).build();
  }

  private static PackManifest pack(String packId, String schema) {
    return PackManifest.newBuilder().setPackId(packId).setVersion("1.0.0").addTools(ToolDefinition.newBuilder()
      .setName("fz_tool").setDescription("fuzz").setInputSchemaJson(schema)).build();
  }

  /** A well-formed request of the method, to mutate: what gets past decoding reaches the handler. */
  private byte[] valid(String method) {
    String uuid = UUID.randomUUID().toString();
    MessageLite m = switch (method) {
      case "AgentStream" -> AgentMessage.newBuilder().setRegister(RawAgent.registration("fz-grpc-agent")).build();
      case "SendMessage" -> ClientSendMessageRequest.newBuilder().setConversationKey(FuzzNode.AGENT_ID).setContent("hello")
        .setIdempotencyKey("fz-g-1").build();
      case "GetEvents" -> GetEventsRequest.newBuilder().setConversationKey(FuzzNode.AGENT_ID).build();
      case "StreamEvents" -> StreamEventsRequest.newBuilder().setConversationKey(FuzzNode.AGENT_ID).build();
      case "ListAgents" -> ListAgentsRequest.getDefaultInstance();
      case "RegisterAgent" -> RegisterAgentRequest.newBuilder().setDisplayName("fz-ssh").setFingerprint("ab".repeat(32)).build();
      case "RegisterClient" -> RegisterClientRequest.newBuilder().setDisplayName("fz-ssh").setFingerprint("cd".repeat(32)).build();
      case "ApproveTool" -> ApproveToolRequest.newBuilder().setAgentId(FuzzNode.AGENT_ID).setToolId("t-1").setApproved(true).build();
      case "AnswerQuestion" -> AnswerQuestionRequest.newBuilder().setAgentId(FuzzNode.AGENT_ID).setQuestionId("q-1").addSelected("yes").build();
      case "ListBindings" -> ListBindingsRequest.getDefaultInstance();
      case "CreateBinding" -> CreateBindingRequest.newBuilder().setFrontend("fuzz").setChannelId("fz-channel").setAgentId(FuzzNode.AGENT_ID).build();
      case "UpdateBinding" -> UpdateBindingRequest.newBuilder().setId(uuid).setAgentId(FuzzNode.AGENT_ID).build();
      case "DeleteBinding" -> DeleteBindingRequest.newBuilder().setId(uuid).build();
      case "CreateToken" -> CreateTokenRequest.newBuilder().setPrincipalId(uuid).build();
      case "ListPrincipals" -> ListPrincipalsRequest.getDefaultInstance();
      case "CreatePrincipal" -> CreatePrincipalRequest.newBuilder().setType("client").setDisplayName("fz-grpc").addRoles("member").build();
      case "DeletePrincipal" -> DeletePrincipalRequest.newBuilder().setId(uuid).build();
      case "Register" -> PackManifest.newBuilder().setPackId("fz-grpc-pack").setVersion("1.0.0").addTools(ToolDefinition.newBuilder()
        .setName("fz_tool").setDescription("fuzz").setInputSchemaJson("{\"type\":\"object\"}")).build();
      case "ToolResult" -> ExecuteToolResponse.newBuilder().setRequestId(uuid).setOutputJson("{}").build();
      default -> Empty.getDefaultInstance();
    };
    if (method.equals("ServerReflectionInfo")) {
      return new byte[] {0x3a, 0x00}; // list_services
    }
    if (method.equals("Check") || method.equals("Watch")) {
      return new byte[] {0x0a, 0x00}; // service ""
    }
    return m.toByteArray();
  }
}
