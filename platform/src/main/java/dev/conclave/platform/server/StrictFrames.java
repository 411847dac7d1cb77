package dev.conclave.platform.server;

import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.http.HttpServerRequestInternal;
import io.vertx.core.internal.http.HttpServerRequestWrapper;

import java.util.Locale;
import java.util.Optional;

/**
 * Reads the 5-byte prefix of every message a gRPC call sends (a compressed flag, a four-byte
 * length) and refuses a flag other than 0 or 1, which the gRPC spec allows alone. Vert.x 5.0.7
 * reads any flag but 1 as "not compressed", so a frame flagged 0xFF was accepted.
 *
 * <p>The gate wraps each call's request in one of these before the gRPC server sees it. Messages
 * before the bad one pass; the bad one and everything after it never reach Vert.x's deframer.
 * Instead the deframer is given a prefix that declares a message too large for it, so that Vert.x
 * reports an invalid message to the handler each service installs with {@link GrpcMessages#bound},
 * the path a service already ends its call on with a precise status; {@link #refusal} tells that
 * handler it was this check, through a request header only the gate sets. The open services, which
 * Vert.x answers itself, are answered here: {@code INVALID_ARGUMENT} before their response has
 * started, a cancelled stream after.
 *
 * <p>gRPC-Web text calls are base64 and not read here; Vert.x decodes them whole.
 */
final class StrictFrames extends HttpServerRequestWrapper {

  /** Set by the gate only (a client's value is removed first): the refused flag, as {@code 0xFF}. */
  static final String REFUSED = "x-conclave-frame-refused";

  /** A prefix declaring a message of 2^32 - 1 bytes: more than any call may send, so Vert.x reports it. */
  private static final Buffer OVERSIZED = Buffer.buffer(new byte[] {0, -1, -1, -1, -1});
  private static final int PREFIX = 5;

  private final boolean answerHere;
  private Handler<Buffer> downstream;
  private Handler<Void> end;
  private final byte[] prefix = new byte[PREFIX];
  private int prefixRead;
  private long messageLeft;
  private boolean refused;

  private StrictFrames(HttpServerRequestInternal delegate, boolean answerHere) {
    super(delegate);
    this.answerHere = answerHere;
  }

  /**
   * The request to hand to the gRPC server: checked, when its content type is a binary gRPC one.
   * {@code open}: an open service, answered here (Vert.x decodes its messages itself).
   */
  static HttpServerRequest check(HttpServerRequest request, boolean open) {
    request.headers().remove(REFUSED);
    String type = request.getHeader("content-type");
    boolean binary = type != null && type.toLowerCase(Locale.ROOT).startsWith("application/grpc")
      && !type.toLowerCase(Locale.ROOT).startsWith("application/grpc-web-text");
    return binary && request instanceof HttpServerRequestInternal internal ? new StrictFrames(internal, open) : request;
  }

  /** Why the call's messages were refused, when it was this check (the header {@link #REFUSED}). */
  static Optional<ConclaveException> refusal(MultiMap headers) {
    String flag = headers.get(REFUSED);
    return flag == null ? Optional.empty() : Optional.of(invalidFlag(flag));
  }

  @Override
  public HttpServerRequest handler(Handler<Buffer> handler) {
    downstream = handler;
    return delegate.handler(handler == null ? null : this::inspect);
  }

  @Override
  public HttpServerRequest endHandler(Handler<Void> handler) {
    end = handler;
    return delegate.endHandler(handler == null ? null : v -> {
      // an open service answered here hears nothing more: its own answer would come after ours
      if (!(refused && answerHere) && end != null) {
        end.handle(null);
      }
    });
  }

  private void inspect(Buffer chunk) {
    if (refused) {
      return;
    }
    int n = chunk.length();
    int i = 0;
    while (i < n) {
      if (messageLeft > 0) {
        int take = (int) Math.min(messageLeft, n - i);
        i += take;
        messageLeft -= take;
        continue;
      }
      byte b = chunk.getByte(i);
      if (prefixRead == 0 && b != 0 && b != 1) {
        refuse(chunk.slice(0, i), b);
        return;
      }
      prefix[prefixRead++] = b;
      i++;
      if (prefixRead == PREFIX) {
        messageLeft = ((prefix[1] & 0xFFL) << 24) | ((prefix[2] & 0xFFL) << 16) | ((prefix[3] & 0xFFL) << 8) | (prefix[4] & 0xFFL);
        prefixRead = 0;
      }
    }
    downstream.handle(chunk);
  }

  private void refuse(Buffer before, byte flag) {
    refused = true;
    String written = String.format("0x%02X", flag & 0xFF);
    if (before.length() > 0) {
      downstream.handle(before);
    }
    if (answerHere) {
      if (!response().headWritten() && !response().ended() && !response().closed()) {
        GrpcFailures.reject(response(), invalidFlag(written));
      } else if (!response().closed()) {
        response().reset(CANCEL);
      }
      return;
    }
    delegate.headers().set(REFUSED, written);
    downstream.handle(OVERSIZED.copy());
  }

  private static ConclaveException invalidFlag(String written) {
    return ConclaveException.invalid("compressed_flag_invalid",
      "a message's compressed flag is " + written + "; the gRPC spec allows only 0 (not compressed) and 1 (compressed)");
  }

  /** HTTP/2 CANCEL. */
  private static final long CANCEL = 0x8;
}
