package dev.conclave.platform.server;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.validation.TextRules;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcHeaderNames;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.MessageSizeOverflowException;
import io.vertx.grpc.server.GrpcServerRequest;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * Decodes the messages of gRPC calls within {@code CONCLAVE_MAX_MESSAGE_BYTES}, after decompression.
 *
 * <p>Vert.x 5.0.7 bounds a frame as it arrives but inflates a gzip frame without bound before any
 * handler sees it (a 65 KB frame became 64 MiB), and a frame flagged compressed in a call that named
 * no {@code grpc-encoding} makes its deframer throw, so the call hung. Every service therefore takes
 * its messages raw and decodes them here: gzip inflated to at most the limit, a compressed frame in a
 * call without an encoding refused, a message that does not parse refused, each with a precise status.
 * The gate ({@link #admit}) refuses encodings this node does not speak before any frame is read, and
 * reads every frame's compressed flag ({@link StrictFrames}): one other than 0 or 1 ends the call
 * through {@link #bound}.
 */
public final class GrpcMessages {

  /** What this node inflates. */
  static final Set<String> ENCODINGS = Set.of("identity", "gzip");
  /** The encoding the gate gives a call that named none, so a frame flagged compressed in it is recognised. */
  static final String UNDECLARED = "x-conclave-undeclared";

  private final int maxBytes;

  public GrpcMessages(int maxBytes) {
    this.maxBytes = maxBytes;
  }

  public int maxBytes() {
    return maxBytes;
  }

  /**
   * Checks a call's {@code grpc-encoding} before anything reads it: an encoding other than identity or
   * gzip (or any compression where {@code compressed} is false) is refused. A call without one is
   * marked so that a frame flagged compressed in it is refused by {@link #decode}; where Vert.x
   * decodes itself ({@code compressed} false: the open health and reflection services) it is marked
   * identity instead, so such a frame is read as plain bytes and fails to parse rather than hang.
   */
  static Optional<ConclaveException> admit(MultiMap headers, boolean compressed) {
    String encoding = headers.get(GrpcHeaderNames.GRPC_ENCODING);
    if (encoding == null || encoding.isBlank()) {
      headers.set(GrpcHeaderNames.GRPC_ENCODING, compressed ? UNDECLARED : "identity");
      return Optional.empty();
    }
    String e = encoding.trim();
    if (e.equals("identity") || (compressed && ENCODINGS.contains(e))) {
      return Optional.empty();
    }
    return Optional.of(new ConclaveException(ErrorKind.UNSUPPORTED_MEDIA, "encoding_unsupported",
      "grpc-encoding '" + TextRules.echo(e) + "' is not accepted here; use " + (compressed ? "identity or gzip" : "identity")));
  }

  /** The value of {@code grpc-accept-encoding} this node answers refused encodings with. */
  static String acceptEncoding(boolean compressed) {
    return compressed ? "identity,gzip" : "identity";
  }

  /** One frame, decoded; a {@link ConclaveException} says precisely why not. */
  public <T> T decode(GrpcMessage frame, GrpcMessageDecoder<T> decoder) {
    Buffer payload = switch (frame.encoding() == null ? "identity" : frame.encoding()) {
      case "identity" -> frame.payload();
      case "gzip" -> inflate(frame.payload());
      case UNDECLARED -> throw ConclaveException.invalid("compression_undeclared",
        "the message is flagged compressed but the call has no grpc-encoding header");
      default -> throw new ConclaveException(ErrorKind.UNSUPPORTED_MEDIA, "encoding_unsupported",
        "grpc-encoding '" + TextRules.echo(frame.encoding()) + "' is not accepted here; use identity or gzip");
    };
    if (payload.length() > maxBytes) {
      throw tooLarge(payload.length());
    }
    try {
      return decoder.decode(GrpcMessage.message("identity", frame.format(), payload));
      // CodecException (a RuntimeException) wraps the parser's complaint
    } catch (RuntimeException e) {
      Throwable root = e.getCause() != null ? e.getCause() : e;
      throw ConclaveException.invalid("malformed_message", "the message does not parse as the method's request: "
        + TextRules.echo(String.valueOf(root.getMessage())));
    }
  }

  /**
   * The one message of a unary or server-streaming call, decoded once the client has sent it all.
   * A second message, none at all, or one over the limit fails the future.
   */
  public <T> Future<T> single(GrpcServerRequest<T, ?> request, GrpcMessageDecoder<T> decoder) {
    Promise<T> result = Promise.promise();
    GrpcMessage[] received = {null};
    request.messageHandler(frame -> {
      if (received[0] != null) {
        result.tryFail(ConclaveException.invalid("one_message_expected", "this method takes exactly one request message"));
      }
      received[0] = frame;
    });
    bound(request, result::tryFail);
    request.exceptionHandler(result::tryFail);
    request.endHandler(v -> {
      if (received[0] == null) {
        result.tryFail(ConclaveException.invalid("message_missing", "the call ended without a request message"));
        return;
      }
      try {
        result.tryComplete(decode(received[0], decoder));
      } catch (ConclaveException e) {
        result.tryFail(e);
      }
    });
    return result.future();
  }

  /**
   * Reports a frame larger than the limit (Vert.x skips it) as RESOURCE_EXHAUSTED with the sizes, and
   * a frame whose compressed flag is neither 0 nor 1 ({@link StrictFrames}) as INVALID_ARGUMENT.
   */
  public void bound(GrpcServerRequest<?, ?> request, Consumer<ConclaveException> invalidFrame) {
    request.invalidMessageHandler(invalid -> {
      Optional<ConclaveException> badFlag = StrictFrames.refusal(request.headers());
      if (badFlag.isPresent()) {
        invalidFrame.accept(badFlag.get());
        return;
      }
      long size = invalid instanceof MessageSizeOverflowException overflow ? overflow.messageSize() : -1;
      invalidFrame.accept(size >= 0 ? tooLarge(size) : ConclaveException.invalid("malformed_message", "the message is not a valid gRPC frame"));
    });
  }

  private ConclaveException tooLarge(long size) {
    return new ConclaveException(ErrorKind.PAYLOAD_TOO_LARGE, "message_too_large",
      "the message is " + size + " bytes; this node accepts at most " + maxBytes + " bytes per message (CONCLAVE_MAX_MESSAGE_BYTES)");
  }

  private Buffer inflate(Buffer compressed) {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(compressed.getBytes()))) {
      byte[] out = in.readNBytes(maxBytes + 1);
      if (out.length > maxBytes) {
        throw new ConclaveException(ErrorKind.PAYLOAD_TOO_LARGE, "message_too_large",
          "the message inflates beyond " + maxBytes + " bytes, the most this node accepts per message (CONCLAVE_MAX_MESSAGE_BYTES)");
      }
      return Buffer.buffer(out);
    } catch (IOException e) {
      throw ConclaveException.invalid("malformed_message", "the gzip message does not decompress: " + TextRules.echo(String.valueOf(e.getMessage())));
    }
  }
}
