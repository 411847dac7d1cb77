package dev.conclave.platform.server;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.grpc.common.GrpcHeaderNames;
import io.vertx.grpc.server.GrpcServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Ends gRPC calls with the precise status a failure stands for. */
public final class GrpcFailures {

  private static final Logger LOG = LoggerFactory.getLogger(GrpcFailures.class);

  private GrpcFailures() {
  }

  /** Ends the call with the status for {@code failure}; logs failures nobody anticipated. */
  public static void fail(GrpcServerResponse<?, ?> response, String method, Throwable failure) {
    ConclaveException e = Failures.report(LOG, "grpc " + method, failure);
    try {
      end(response, e);
    } catch (RuntimeException alreadyEnded) {
      // the stream ended in the meantime (peer reset, or an earlier end; Vert.x 5.0.7 may throw an
      // NPE from a stream closed under it): nothing left to tell
      LOG.debug("grpc call already ended method={} error={}", method, alreadyEnded.toString());
    }
  }

  /**
   * Ends a call with the status of {@code e} and its message encoded as the gRPC spec says: only
   * bytes outside printable ASCII, and '%', are percent-encoded. (Vert.x 5.0.7 form-encodes the
   * status message, so clients such as grpc-js show {@code superseded%3A a%20newer…}; a message we
   * put in the headers or trailers ourselves it leaves alone.)
   */
  public static void end(GrpcServerResponse<?, ?> response, ConclaveException e) {
    String message = percentEncode(e.code() + ": " + Failures.safeDetail(e.detail()));
    // before any message the answer is trailers-only: the status goes in the headers
    if (response instanceof io.vertx.grpc.common.impl.GrpcWriteStreamBase<?, ?> stream && stream.isHeadersSent()) {
      response.trailers().set(GrpcHeaderNames.GRPC_MESSAGE, message);
    } else {
      response.headers().set(GrpcHeaderNames.GRPC_MESSAGE, message);
    }
    response.status(e.kind().grpcStatus()).end();
  }

  /**
   * Answers a raw HTTP/2 request with a trailers-only gRPC error, before any gRPC handling.
   * Used by the authentication gate.
   */
  public static void reject(HttpServerResponse response, ConclaveException e) {
    String contentType = "application/grpc";
    response.setStatusCode(200)
      .putHeader(HttpHeaders.CONTENT_TYPE, contentType)
      .putHeader(GrpcHeaderNames.GRPC_STATUS, e.kind().grpcStatus().toString())
      .putHeader(GrpcHeaderNames.GRPC_MESSAGE, percentEncode(e.code() + ": " + Failures.safeDetail(e.detail())))
      .end();
  }

  /** grpc-message is percent-encoded per the gRPC HTTP/2 spec. */
  private static String percentEncode(String message) {
    StringBuilder out = new StringBuilder();
    for (byte b : message.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (c >= 0x20 && c <= 0x7e && c != '%') {
        out.append((char) c);
      } else {
        out.append('%').append(String.format("%02X", c));
      }
    }
    return out.toString();
  }
}
