package dev.conclave.e2e.cluster;

import dev.conclave.e2e.support.BenchMain;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Benchmark, not a test: the event-bus bridge on a 3-node cluster of real processes. Conversations
 * run on agents held by node-1; 100 bridge sockets (raw WebSocket transport) spread round-robin over
 * the 3 nodes each follow one conversation, and one gRPC {@code StreamEvents} client per conversation
 * (on node-2) follows the same events. Prints the events per second delivered to the sockets and,
 * measured in the same run on the same events, the latency from the event's ledger time to arrival
 * for both kinds of follower.
 *
 * <pre>mvn -B -ntp -q -pl e2e -am package -DskipTests exec:java -Dexec.mainClass=dev.conclave.e2e.cluster.BridgeBench \
 *   [-Dbench.sockets=100] [-Dbench.conversations=10] [-Dbench.seconds=20] [-Dbench.concurrency=10]</pre>
 */
public final class BridgeBench {

  private BridgeBench() {
  }

  public static void main(String[] args) {
    BenchMain.run(BridgeBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) throws Exception {
    int sockets = Integer.getInteger("bench.sockets", 100);
    int conversations = Integer.getInteger("bench.conversations", 10);
    int seconds = Integer.getInteger("bench.seconds", 20);
    System.out.printf("bridge bench: 3 nodes, %d conversations (agents on node-1), %d bridge sockets over 3 nodes, %d s%n",
      conversations, sockets, seconds);
    try (Cluster cluster = new Cluster(3)) {
      cluster.startAll();
      Vertx vertx = Vertx.vertx();
      GrpcClient grpc = GrpcClient.client(vertx);
      String admin = cluster.adminToken();
      String agentToken = cluster.agentToken("bridge-bench");
      List<ResilientAgent> agents = new ArrayList<>();
      for (int i = 0; i < conversations; i++) {
        ResilientAgent a = new ResilientAgent(vertx, grpc, cluster.grpcPorts(), cluster.member(0).grpc(), agentToken, "bb-" + i, 0);
        a.start().await(60, TimeUnit.SECONDS);
        agents.add(a);
      }
      Recorder bridge = new Recorder();
      Recorder streams = new Recorder();
      boolean[] measuring = {false};
      WebSocketClient wsClient = vertx.createWebSocketClient();
      CountDownLatch subscribed = new CountDownLatch(sockets);
      for (int s = 0; s < sockets; s++) {
        String address = "conclave.events.conversation.bb-" + (s % conversations);
        int port = cluster.member(s % 3).http();
        WebSocket ws = wsClient.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port).setURI("/eventbus/websocket"))
          .await(10, TimeUnit.SECONDS);
        ws.textMessageHandler(text -> {
          JsonObject frame = new JsonObject(text);
          JsonObject body = frame.getJsonObject("body");
          if (body == null) {
            return;
          }
          if (body.containsKey("subscribed")) {
            subscribed.countDown();
          } else if (measuring[0]) {
            bridge.record(body.getJsonObject("event").getString("timestamp"));
          }
        });
        ws.writeTextMessage(new JsonObject().put("type", "register").put("address", address)
          .put("headers", new JsonObject().put("authorization", "Bearer " + admin)).encode());
        // the bridge closes sockets that do not ping
        vertx.setPeriodic(5000, t -> ws.writeTextMessage("{\"type\":\"ping\"}"));
      }
      if (!subscribed.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("only " + (sockets - subscribed.getCount()) + " sockets subscribed");
      }
      SocketAddress node2 = SocketAddress.inetSocketAddress(cluster.member(1).grpc(), "127.0.0.1");
      for (int c = 0; c < conversations; c++) {
        var req = grpc.request(node2, ClientServiceGrpcClient.StreamEvents).await(10, TimeUnit.SECONDS);
        req.headers().set("authorization", "Bearer " + admin);
        req.end(StreamEventsRequest.newBuilder().setConversationKey("bb-" + c).build());
        req.response().await(10, TimeUnit.SECONDS).handler((ClientStreamEvent e) -> {
          if (measuring[0]) {
            streams.record(e.getTimestamp());
          }
        });
      }

      // load: a closed loop of messages per conversation, sent to node-3
      SocketAddress node3 = SocketAddress.inetSocketAddress(cluster.member(2).grpc(), "127.0.0.1");
      AtomicLong sent = new AtomicLong();
      long[] stopAt = {System.nanoTime() + 3_000_000_000L};
      List<Future<Void>> loops = new ArrayList<>();
      for (int c = 0; c < conversations; c++) {
        loops.add(sendLoop(grpc, node3, admin, "bb-" + c, sent, stopAt));
      }
      Thread.sleep(3000);
      measuring[0] = true;
      long start = System.nanoTime();
      stopAt[0] = start + seconds * 1_000_000_000L;
      Future.all(loops).await(seconds + 60L, TimeUnit.SECONDS);
      Thread.sleep(1000);
      measuring[0] = false;
      double elapsed = (System.nanoTime() - start) / 1e9;

      System.out.println();
      System.out.printf("messages sent: %d (%.1f/s)%n", sent.get(), sent.get() / elapsed);
      System.out.printf("%-40s %10s %8s %8s %8s%n", "follower", "events/s", "p50 ms", "p90 ms", "p99 ms");
      bridge.print("bridge sockets (" + sockets + ", 3 nodes)", elapsed);
      streams.print("gRPC StreamEvents (" + conversations + ", node-2)", elapsed);
      BenchMain.requireCompleted("messages sent", sent.get());
      BenchMain.requireCompleted("events delivered to bridge sockets while measuring", bridge.count());
      BenchMain.requireCompleted("events delivered to StreamEvents followers while measuring", streams.count());
      agents.forEach(ResilientAgent::stop);
      grpc.close();
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static Future<Void> sendLoop(GrpcClient grpc, SocketAddress node, String admin, String key, AtomicLong sent, long[] stopAt) {
    if (System.nanoTime() > stopAt[0]) {
      return Future.succeededFuture();
    }
    return grpc.request(node, ClientServiceGrpcClient.SendMessage).compose(req -> {
      req.headers().set("authorization", "Bearer " + admin);
      return req.send(ClientSendMessageRequest.newBuilder().setConversationKey(key).setContent("ping")
        .setIdempotencyKey(key + "-" + System.nanoTime()).build());
    }).compose(resp -> resp.last()).compose(r -> {
      sent.incrementAndGet();
      return sendLoop(grpc, node, admin, key, sent, stopAt);
    });
  }

  /** Arrival latencies (event's ledger time to arrival), in microseconds. */
  private static final class Recorder {
    private final ConcurrentLinkedQueue<Long> micros = new ConcurrentLinkedQueue<>();

    void record(String timestamp) {
      Instant at = Instant.parse(timestamp);
      Instant now = Instant.now();
      micros.add((now.getEpochSecond() - at.getEpochSecond()) * 1_000_000 + (now.getNano() - at.getNano()) / 1000);
    }

    long count() {
      return micros.size();
    }

    void print(String label, double elapsed) {
      long[] l = micros.stream().mapToLong(Long::longValue).sorted().toArray();
      int n = l.length;
      if (n == 0) {
        System.out.printf("%-40s %10s%n", label, "no events");
        return;
      }
      System.out.printf("%-40s %10.0f %8.2f %8.2f %8.2f%n", label, n / elapsed, l[n / 2] / 1e3, l[(int) (n * 0.9)] / 1e3,
        l[Math.min(n - 1, (int) (n * 0.99))] / 1e3);
    }
  }
}
