package dev.conclave.e2e.interop;

import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static dev.conclave.platform.testing.Await.await;

/**
 * What a client following a conversation with {@code StreamEvents} sees of one request: the
 * conversation is replayed from its first event, and the feed starts right after the request's
 * inbound message (the ledger entry whose {@code raw_payload_ref} names the request). The agent
 * works on one request at a time, so what follows up to the next terminal event is that request's.
 */
final class RequestFeed implements AutoCloseable {

  private final BlockingQueue<ClientStreamEvent> events = new LinkedBlockingQueue<>();
  private final CompletableFuture<String> end = new CompletableFuture<>();
  private final GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> call;
  private final List<ClientStreamEvent> seen = new ArrayList<>();

  private RequestFeed(GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> call) {
    this.call = call;
    call.response().onComplete(ar -> {
      if (ar.failed()) {
        end.complete("failed: " + ar.cause());
        return;
      }
      var response = ar.result();
      response.handler(events::add);
      response.endHandler(v -> end.complete("ended: " + response.status() + " " + response.statusMessage()));
      response.exceptionHandler(err -> end.complete("failed: " + err));
    });
  }

  /** Follows the conversation and skips to just after {@code requestId}'s inbound message. */
  static RequestFeed of(GrpcCalls grpc, String authorization, String conversationKey, String requestId) {
    GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> call = await(grpc.open(ClientServiceGrpcClient.StreamEvents, authorization));
    RequestFeed feed = new RequestFeed(call);
    call.end(StreamEventsRequest.newBuilder().setConversationKey(conversationKey).setSinceEventId("0").build());
    String ref = "request/" + requestId;
    while (true) {
      ClientStreamEvent e = feed.next();
      if (e.hasEvent() && e.getEvent().getDirection().equals("inbound_to_agent") && e.getEvent().getRawPayloadRef().equals(ref)) {
        feed.seen.clear();
        return feed;
      }
    }
  }

  ClientStreamEvent next() {
    try {
      ClientStreamEvent e = events.poll(15, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("no stream event within 15 s (stream " + end.getNow("open") + "); seen: " + seen);
      }
      seen.add(e);
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Reads until an event matches; returns what was read, the match last. */
  List<ClientStreamEvent> until(Predicate<ClientStreamEvent> stop) {
    List<ClientStreamEvent> read = new ArrayList<>();
    while (true) {
      ClientStreamEvent e = next();
      read.add(e);
      if (stop.test(e)) {
        return read;
      }
    }
  }

  /** Reads up to and including the request's terminal event (done or error). */
  List<ClientStreamEvent> untilTerminal() {
    return until(RequestFeed::terminal);
  }

  static boolean terminal(ClientStreamEvent e) {
    return e.hasDone() || e.hasError();
  }

  @Override
  public void close() {
    if (!end.isDone()) {
      call.cancel();
    }
  }
}
