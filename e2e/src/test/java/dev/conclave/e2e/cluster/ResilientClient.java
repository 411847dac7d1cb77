package dev.conclave.e2e.cluster;

import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientSendMessageResponse;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A client that behaves like a production one: when a node does not answer (connection refused,
 * UNAVAILABLE) it retries on the next node with the same idempotency key, which is always safe.
 */
public final class ResilientClient {

  private final Vertx vertx;
  private final GrpcClient client;
  private final List<SocketAddress> endpoints;
  private final String token;
  private final AtomicInteger retries = new AtomicInteger();
  private int next;

  public ResilientClient(Vertx vertx, GrpcClient client, List<Integer> ports, String token, int start) {
    this(vertx, client, local(ports), start, token);
  }

  /** A client that knows the nodes by address (pods), trying {@code endpoints[start]} first. */
  public ResilientClient(Vertx vertx, GrpcClient client, List<SocketAddress> endpoints, int start, String token) {
    this.vertx = vertx;
    this.client = client;
    this.endpoints = endpoints;
    this.token = token;
    this.next = start;
  }

  public Future<ClientSendMessageResponse> send(String key, String content, String idempotencyKey) {
    return attempt(ClientSendMessageRequest.newBuilder().setConversationKey(key).setContent(content).setIdempotencyKey(idempotencyKey).build(), 0);
  }

  private Future<ClientSendMessageResponse> attempt(ClientSendMessageRequest message, int n) {
    SocketAddress endpoint = endpoints.get(Math.floorMod(next, endpoints.size()));
    return client.request(endpoint, ClientServiceGrpcClient.SendMessage)
      .compose(req -> {
        req.headers().set("authorization", "Bearer " + token);
        req.timeout(10, java.util.concurrent.TimeUnit.SECONDS);
        return req.send(message);
      })
      .compose(resp -> resp.last())
      .recover(err -> {
        if (n >= 20 || !retryable(err)) {
          return Future.failedFuture(err);
        }
        retries.incrementAndGet();
        next++;
        return vertx.timer(100L * Math.min(n + 1, 5)).compose(t -> attempt(message, n + 1));
      });
  }

  /** Node gone or going: try another. Anything else is the caller's problem and is not retried. */
  public static boolean retryable(Throwable err) {
    if (err instanceof io.vertx.grpc.client.InvalidStatusException ise) {
      var s = ise.actualStatus();
      return s == io.vertx.grpc.common.GrpcStatus.UNAVAILABLE || s == io.vertx.grpc.common.GrpcStatus.DEADLINE_EXCEEDED
        || s == io.vertx.grpc.common.GrpcStatus.CANCELLED || s == io.vertx.grpc.common.GrpcStatus.UNKNOWN;
    }
    return true;
  }

  /** The nodes on 127.0.0.1 at these ports. */
  public static List<SocketAddress> local(List<Integer> ports) {
    return ports.stream().map(p -> SocketAddress.inetSocketAddress(p, "127.0.0.1")).toList();
  }

  public int retries() {
    return retries.get();
  }
}
