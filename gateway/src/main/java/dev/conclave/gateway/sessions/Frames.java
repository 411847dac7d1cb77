package dev.conclave.gateway.sessions;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.proto.coven.AgentMessage;
import io.vertx.core.Future;
import io.vertx.grpc.common.GrpcMessage;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.zip.GZIPInputStream;

/** Decodes agents' gRPC frames into AgentMessages, with a precise error for anything else. */
final class Frames {

  /** A compressed frame may not inflate beyond this (no zip bombs). */
  static final int MAX_INFLATED_BYTES = 16 * 1024 * 1024;

  private Frames() {
  }

  static Future<AgentMessage> decode(GrpcMessage frame) {
    try {
      byte[] bytes = frame.payload().getBytes();
      String encoding = frame.encoding() == null ? "identity" : frame.encoding();
      switch (encoding) {
        case "identity" -> {
        }
        case "gzip" -> bytes = gunzip(bytes);
        default -> {
          return Future.failedFuture(ConclaveException.invalid("encoding_unsupported",
            "message encoding '" + encoding + "' is not supported; use identity or gzip"));
        }
      }
      return Future.succeededFuture(AgentMessage.parseFrom(bytes));
    } catch (InvalidProtocolBufferException e) {
      return Future.failedFuture(ConclaveException.invalid("malformed_message", "the message is not an AgentMessage: " + e.getMessage()));
    } catch (IOException e) {
      return Future.failedFuture(ConclaveException.invalid("malformed_message", "the gzip message does not decompress: " + e.getMessage()));
    }
  }

  private static byte[] gunzip(byte[] bytes) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
      byte[] out = in.readNBytes(MAX_INFLATED_BYTES + 1);
      if (out.length > MAX_INFLATED_BYTES) {
        throw new IOException("it inflates beyond " + MAX_INFLATED_BYTES + " bytes");
      }
      return out;
    }
  }
}
