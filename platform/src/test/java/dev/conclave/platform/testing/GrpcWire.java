package dev.conclave.platform.testing;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPOutputStream;

/**
 * gRPC at the wire: HTTP/2 requests whose frames a test writes byte by byte (compressed flags,
 * lengths and encodings no well-behaved client would send), and the answer as it came back.
 */
public final class GrpcWire implements AutoCloseable {

  /** What came back: HTTP status, grpc-status and grpc-message (headers or trailers), or a timeout. */
  public record Answer(int httpStatus, String grpcStatus, String grpcMessage, Buffer body, boolean timedOut) {
  }

  private final Vertx vertx;
  private final int port;

  public GrpcWire(Vertx vertx, int port) {
    this.vertx = vertx;
    this.port = port;
  }

  /** One gRPC length-prefixed frame. */
  public static byte[] frame(boolean compressedFlag, byte[] payload) {
    return frame(compressedFlag ? 1 : 0, payload);
  }

  /** One frame with any flag byte (the gRPC spec allows only 0 and 1). */
  public static byte[] frame(int flag, byte[] payload) {
    return ByteBuffer.allocate(5 + payload.length).put((byte) flag).putInt(payload.length).put(payload).array();
  }

  public static byte[] gzip(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /**
   * Posts {@code body} to {@code path} as a gRPC call with {@code headers}, on a connection of its own;
   * blocks (tests only). One connection per call: on a shared one, Vert.x 5.0.7's HTTP/2 client now
   * and then never completed a response whose frames (trailers-only, end of stream) Netty's frame log
   * showed had arrived, so a correct answer looked like a hang.
   *
   * <p>A call that got no answer within {@code timeout} is made once more on a new connection, and
   * only a second silence is reported as a timeout: on a loaded machine about one call in 400 still
   * went unanswered on its own connection (seen in CI and under a stress loop, never twice in a row),
   * while a server that hangs on the input hangs every time.
   */
  public Answer call(String path, Map<String, String> headers, byte[] body, Duration timeout) {
    Answer first = once(path, headers, body, timeout);
    if (!first.timedOut()) {
      return first;
    }
    System.err.println("GrpcWire: no answer to " + path + " within " + timeout.toMillis() + " ms; calling once more on a new connection");
    return once(path, headers, body, timeout);
  }

  private Answer once(String path, Map<String, String> headers, byte[] body, Duration timeout) {
    HttpClient client = vertx.createHttpClient(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
    try {
      return call(client, path, headers, body, timeout);
    } finally {
      client.close();
    }
  }

  private Answer call(HttpClient client, String path, Map<String, String> headers, byte[] body, Duration timeout) {
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port).setURI(path)
      .putHeader("content-type", "application/grpc").putHeader("te", "trailers");
    headers.forEach((name, value) -> options.getHeaders().set(name, value));
    var answer = client.request(options)
      .compose(req -> req.send(Buffer.buffer(body)))
      .compose(resp -> resp.body().map(b -> {
        MultiMap trailers = resp.trailers();
        String status = firstOf(resp.getHeader("grpc-status"), trailers.get("grpc-status"));
        String message = firstOf(resp.getHeader("grpc-message"), trailers.get("grpc-message"));
        return new Answer(resp.statusCode(), status, message, b, false);
      }));
    try {
      return answer.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      if (!answer.isComplete()) {
        return new Answer(0, null, null, Buffer.buffer(), true);
      }
      throw new IllegalStateException("call to " + path + " failed: " + e, e);
    } catch (Exception e) {
      throw new IllegalStateException("call to " + path + " failed: " + e, e);
    }
  }

  private static String firstOf(String a, String b) {
    return a != null ? a : b;
  }

  @Override
  public void close() {
    // each call closes its own connection
  }
}
