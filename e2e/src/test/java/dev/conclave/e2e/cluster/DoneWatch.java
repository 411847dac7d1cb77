package dev.conclave.e2e.cluster;

import dev.conclave.e2e.faults.GatewayOps;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.core.Future;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Follows conversations with {@code StreamEvents}, as a client waiting for answers does, and notes
 * when each request's {@code done} arrives: the time a client learns that a request was served,
 * without polling the node (which would add load to the very node being measured). The agents must
 * answer with {@link GatewayOps#answerText}, which names the request.
 */
final class DoneWatch implements AutoCloseable {

  private final GrpcClient grpc;
  private final SocketAddress node;
  private final String token;
  private final ConcurrentHashMap<String, CompletableFuture<Long>> done = new ConcurrentHashMap<>();
  private final List<GrpcClientRequest<StreamEventsRequest, ClientStreamEvent>> streams = new ArrayList<>();

  DoneWatch(GrpcClient grpc, SocketAddress node, String token) {
    this.grpc = grpc;
    this.node = node;
    this.token = token;
  }

  /** Follows {@code conversation} from its beginning; completes once the stream is open. */
  Future<Void> follow(String conversation) {
    return grpc.request(node, ClientServiceGrpcClient.StreamEvents).compose(req -> {
      synchronized (streams) {
        streams.add(req);
      }
      req.headers().set("authorization", "Bearer " + token);
      req.end(StreamEventsRequest.newBuilder().setConversationKey(conversation).setSinceEventId("0").build());
      return req.response().map(resp -> {
        resp.handler(e -> {
          if (e.getPayloadCase() == ClientStreamEvent.PayloadCase.DONE) {
            GatewayOps.requestIn(e.getDone().getFullResponse()).ifPresent(id -> arrived(id).complete(System.nanoTime()));
          }
        });
        return null;
      });
    });
  }

  /** When request {@code id}'s done arrived ({@link System#nanoTime}), waiting up to {@code timeoutMs}; empty if it did not. */
  Optional<Long> doneAt(String id, long timeoutMs) {
    try {
      return Optional.of(arrived(id).get(timeoutMs, TimeUnit.MILLISECONDS));
    } catch (TimeoutException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  private CompletableFuture<Long> arrived(String id) {
    return done.computeIfAbsent(id, k -> new CompletableFuture<>());
  }

  @Override
  public void close() {
    synchronized (streams) {
      for (GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> s : streams) {
        try {
          s.cancel();
        } catch (RuntimeException gone) {
          // already ended
        }
      }
    }
  }
}
