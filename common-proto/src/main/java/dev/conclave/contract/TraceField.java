package dev.conclave.contract;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import com.google.protobuf.UnknownFieldSet;

import java.util.Optional;

/**
 * Field 1000 of a Coven message (conclave_trace.proto), carried as an unknown field: the Coven class
 * of the message does not declare it, so whoever parses the message with coven.proto alone skips it,
 * and the message without it is the Coven one byte for byte. Written once for every message that
 * carries a trace context ({@link SendMessageTraces}, {@link ExecuteToolRequestTraces}).
 */
final class TraceField {

  private TraceField() {
  }

  /** Adds the encoded trace message's fields to {@code message} as unknown fields; nothing when it is empty. */
  static <B extends Message.Builder> B attach(B message, ByteString trace) {
    if (trace.isEmpty()) {
      return message;
    }
    try {
      message.mergeUnknownFields(UnknownFieldSet.parseFrom(trace));
      return message;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a trace message did not parse back", e);
    }
  }

  /** {@code message}'s unknown fields read as the trace message; empty when it has none or they do not parse as one. */
  static <T> Optional<T> read(Message message, Parser<T> trace) {
    if (message.getUnknownFields().asMap().isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(trace.parseFrom(message.getUnknownFields().toByteString()));
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }
}
