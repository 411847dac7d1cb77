package dev.conclave.gateway.mailbox;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.FileAttachment;

import java.util.List;
import java.util.Optional;

/** Stores a message's attachments as one protobuf blob (a ClientSendMessageRequest holding only them). */
public final class Attachments {

  private Attachments() {
  }

  public static Optional<byte[]> encode(List<FileAttachment> attachments) {
    if (attachments.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(ClientSendMessageRequest.newBuilder().addAllAttachments(attachments).build().toByteArray());
  }

  public static List<FileAttachment> decode(Optional<byte[]> blob) {
    if (blob.isEmpty()) {
      return List.of();
    }
    try {
      return ClientSendMessageRequest.parseFrom(blob.get()).getAttachmentsList();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("stored attachments are unreadable", e);
    }
  }
}
