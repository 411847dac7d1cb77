package dev.conclave.e2e.bench;

import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.core.Future;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcStatus;

import java.util.ArrayList;
import java.util.List;

/**
 * A Coven client on its own connection: it follows its conversations with StreamEvents and sends
 * them messages round-robin, one at a time. A request's round trip runs from the SendMessage call
 * to its terminal event (done or error) on the conversation's stream. Only this client writes to
 * its conversations and only one of its requests is in flight, so the next terminal event of the
 * conversation it last wrote to is that request's.
 */
final class GatewayClientLoop extends ClosedLoop {

  private static final int MAX_SEND_ATTEMPTS = 6;

  private final SocketAddress address;
  private final String authorization;
  private final String name;
  private final List<String> conversations;
  private final List<GrpcClientRequest<StreamEventsRequest, ClientStreamEvent>> streams = new ArrayList<>();
  private GrpcClient client;
  private String waitingOn;
  private boolean stopping;

  GatewayClientLoop(Recorder recorder, SocketAddress address, String token, String name, List<String> conversations) {
    super(recorder);
    this.address = address;
    this.authorization = "Bearer " + token;
    this.name = name;
    this.conversations = List.copyOf(conversations);
  }

  /** Connects and follows every conversation from its first event before the loop may run. */
  @Override
  public Future<?> start() {
    client = GrpcClient.client(vertx, new GrpcClientOptions().setMaxMessageSize(4 * 1024 * 1024));
    List<Future<Void>> following = new ArrayList<>();
    for (String key : conversations) {
      following.add(follow(key));
    }
    return Future.all(following);
  }

  private Future<Void> follow(String key) {
    return client.request(address, ClientServiceGrpcClient.StreamEvents).compose(req -> {
      req.headers().set("authorization", authorization);
      streams.add(req);
      // the conversations are new: "0" replays nothing, and nothing can fall between replay and live
      req.end(StreamEventsRequest.newBuilder().setConversationKey(key).setSinceEventId("0").build());
      return req.response().map(resp -> {
        resp.handler(event -> onEvent(key, event));
        resp.exceptionHandler(err -> streamLost(key, String.valueOf(err)));
        resp.endHandler(v -> streamLost(key, resp.status() + " " + resp.statusMessage()));
        return null;
      });
    });
  }

  private void onEvent(String key, ClientStreamEvent event) {
    recorder.events(1);
    if ((event.hasDone() || event.hasError()) && key.equals(waitingOn)) {
      waitingOn = null;
      if (event.hasError()) {
        System.err.println("bench: " + name + " request ended with an error on " + key + ": " + event.getError().getMessage());
      }
      finish(outstanding(), event.hasDone());
    }
  }

  private void streamLost(String key, String why) {
    if (!stopping) {
      System.err.println("bench: " + name + " lost its stream of " + key + ": " + why);
      if (key.equals(waitingOn)) {
        waitingOn = null;
        finish(outstanding(), false);
      }
    }
  }

  @Override
  protected void send(long seq) {
    String key = conversations.get((int) (seq % conversations.size()));
    waitingOn = key;
    ClientSendMessageRequest message = ClientSendMessageRequest.newBuilder()
      .setConversationKey(key)
      .setContent("bench message " + seq + " from " + name)
      .setIdempotencyKey(name + "-" + seq)
      .build();
    send(seq, message, 1);
  }

  /** UNAVAILABLE (the node sheds load) is retried with the same idempotency key, as a client should. */
  private void send(long seq, ClientSendMessageRequest message, int attempt) {
    client.request(address, ClientServiceGrpcClient.SendMessage)
      .compose(req -> {
        req.headers().set("authorization", authorization);
        return req.send(message);
      })
      .compose(resp -> resp.last().recover(err -> Future.failedFuture(new IllegalStateException(
        String.valueOf(resp.status()) + " " + resp.statusMessage(), err))))
      .onFailure(err -> {
        if (outstanding() != seq) {
          return;
        }
        if (err.getMessage() != null && err.getMessage().startsWith(GrpcStatus.UNAVAILABLE.name()) && attempt < MAX_SEND_ATTEMPTS) {
          vertx.setTimer(20L << attempt, t -> send(seq, message, attempt + 1));
          return;
        }
        System.err.println("bench: " + name + " SendMessage failed: " + err.getMessage());
        waitingOn = null;
        finish(seq, false);
      });
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    streams.forEach(s -> {
      try {
        s.cancel();
      } catch (RuntimeException alreadyEnded) {
        // ended by the node
      }
    });
    return client.close();
  }
}
