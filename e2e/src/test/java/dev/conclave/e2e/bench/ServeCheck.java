package dev.conclave.e2e.bench;

import dev.conclave.e2e.support.AgentConnections;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Registered is not serving: one request through each of the given agents, {@code inFlight} at a
 * time, each followed on its conversation (StreamEvents) to its terminal event, which must be done.
 * A request that fails, ends with an error or takes longer than a minute fails the check.
 */
final class ServeCheck {

  private static final long REQUEST_LIMIT_MS = 60_000;

  private ServeCheck() {
  }

  /** Returns a line that says how many were served and how fast; throws when one was not. */
  static String run(Vertx vertx, SocketAddress node, String adminToken, List<String> agentIds, int inFlight) throws Exception {
    GrpcClient client = AgentConnections.pooled(vertx, 4);
    long[] latencies = new long[agentIds.size()];
    AtomicInteger next = new AtomicInteger();
    long start = System.nanoTime();
    try {
      List<Future<Void>> workers = new ArrayList<>();
      for (int w = 0; w < Math.min(inFlight, agentIds.size()); w++) {
        workers.add(worker(vertx, client, node, "Bearer " + adminToken, agentIds, latencies, next));
      }
      Future.all(workers).await(REQUEST_LIMIT_MS * (agentIds.size() / inFlight + 2), TimeUnit.MILLISECONDS);
    } finally {
      client.close();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Arrays.sort(latencies);
    int n = latencies.length;
    return String.format(Locale.ROOT, "%d of %d agents served one request each (%d in flight): p50 %.1f ms, p99 %.1f ms, max %.1f ms, %.1f s",
      n, n, inFlight, latencies[n / 2] / 1e6, latencies[Math.min(n - 1, (int) (n * 0.99))] / 1e6, latencies[n - 1] / 1e6, seconds);
  }

  private static Future<Void> worker(Vertx vertx, GrpcClient client, SocketAddress node, String authorization, List<String> agentIds,
                                     long[] latencies, AtomicInteger next) {
    int i = next.getAndIncrement();
    if (i >= agentIds.size()) {
      return Future.succeededFuture();
    }
    long t = System.nanoTime();
    return one(vertx, client, node, authorization, agentIds.get(i)).compose(v -> {
      latencies[i] = System.nanoTime() - t;
      return worker(vertx, client, node, authorization, agentIds, latencies, next);
    });
  }

  private static Future<Void> one(Vertx vertx, GrpcClient client, SocketAddress node, String authorization, String agentId) {
    Promise<Void> terminal = Promise.promise();
    long timer = vertx.setTimer(REQUEST_LIMIT_MS, t -> terminal.tryFail("no terminal event for " + agentId + " within " + REQUEST_LIMIT_MS + " ms"));
    return client.request(node, ClientServiceGrpcClient.StreamEvents).compose(follow -> {
      follow.headers().set("authorization", authorization);
      follow.end(StreamEventsRequest.newBuilder().setConversationKey(agentId).setSinceEventId("0").build());
      return follow.response().compose(events -> {
        events.handler((ClientStreamEvent e) -> {
          if (e.hasDone()) {
            terminal.tryComplete();
          } else if (e.hasError()) {
            terminal.tryFail(agentId + " answered with an error: " + e.getError().getMessage());
          }
        });
        events.endHandler(v -> terminal.tryFail(agentId + "'s event stream ended before its terminal event"));
        return client.request(node, ClientServiceGrpcClient.SendMessage).compose(send -> {
          send.headers().set("authorization", authorization);
          return send.send(ClientSendMessageRequest.newBuilder().setConversationKey(agentId).setContent("serve")
            .setIdempotencyKey("serve-" + agentId).build());
        }).compose(resp -> resp.last()).compose(accepted -> terminal.future()).eventually(() -> {
          vertx.cancelTimer(timer);
          try {
            follow.cancel();
          } catch (RuntimeException alreadyEnded) {
            // the node ended the stream
          }
          return Future.succeededFuture();
        });
      });
    });
  }
}
