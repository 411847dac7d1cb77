package dev.conclave.gateway.support;

import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientSendMessageResponse;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcStatus;
import dev.conclave.platform.testing.Await;

/** ClientService calls as one principal. */
public final class Clients {

  private final GrpcCalls grpc;
  private final String token;

  public Clients(GrpcCalls grpc, String token) {
    this.grpc = grpc;
    this.token = token;
  }

  public GrpcCalls grpc() {
    return grpc;
  }

  public String token() {
    return token;
  }

  public String authorization() {
    return GrpcCalls.bearer(token);
  }

  public GrpcCalls.Outcome<ClientSendMessageResponse> send(String conversationKey, String content, String idempotencyKey) {
    return grpc.unary(ClientServiceGrpcClient.SendMessage, ClientSendMessageRequest.newBuilder()
      .setConversationKey(conversationKey).setContent(content).setIdempotencyKey(idempotencyKey).build(), authorization());
  }

  /** Sends and expects it accepted; returns the request (message) id. */
  public String sendOk(String conversationKey, String content, String idempotencyKey) {
    var outcome = send(conversationKey, content, idempotencyKey);
    if (outcome.status() != GrpcStatus.OK) {
      throw new AssertionError("SendMessage failed: " + outcome.status() + " " + outcome.message());
    }
    return outcome.response().orElseThrow().getMessageId();
  }

  public EventTap stream(String conversationKey, String sinceEventId) {
    StreamEventsRequest.Builder req = StreamEventsRequest.newBuilder().setConversationKey(conversationKey);
    if (sinceEventId != null) {
      req.setSinceEventId(sinceEventId);
    }
    GrpcClientRequest<StreamEventsRequest, dev.conclave.proto.coven.ClientStreamEvent> request =
      Await.await(grpc.open(ClientServiceGrpcClient.StreamEvents, authorization()));
    EventTap tap = new EventTap(request);
    request.end(req.build());
    // the gateway answers with headers once the stream is live (or with a refusal): wait for that,
    // so that what the test sends next is followed
    Await.await(request.response());
    return tap;
  }
}
