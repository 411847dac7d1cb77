package dev.conclave.gateway.load;

import dev.conclave.gateway.support.EchoAgent;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 200 agents and 20 clients at once. Each client owns ten agents' conversations, follows them
 * with StreamEvents, and sends each several messages concurrently. Every request must end exactly
 * once at its client, and the ledger must agree.
 */
class ManyAgentsLoadTest {

  static final int AGENTS = 200;
  static final int CLIENTS = 20;
  static final int MESSAGES_PER_AGENT = 3;

  /** Sends like a well-behaved client: UNAVAILABLE is retried with the same idempotency key. */
  static Future<?> send(Vertx vertx, GrpcClient client, GatewayFixture gw, ClientSendMessageRequest message, int attempt) {
    return client.request(gw.address(), ClientServiceGrpcClient.SendMessage).compose(req -> {
      req.headers().set("authorization", gw.admin().authorization());
      return req.send(message);
    }).compose(resp -> resp.last().recover(err -> {
      if (resp.status() == io.vertx.grpc.common.GrpcStatus.UNAVAILABLE && attempt < 6) {
        return vertx.timer(50L << attempt).compose(t -> send(vertx, client, gw, message, attempt + 1)).mapEmpty();
      }
      return Future.failedFuture(err);
    }));
  }

  @Test
  void everyRequestEndsExactlyOnceAtItsClient() throws Exception {
    try (GatewayFixture gw = GatewayFixture.start(TestNode.builder().env("CONCLAVE_PG_POOL_SIZE", "16"))) {
      Vertx vertx = gw.vertx();
      GrpcClient agentsClient = GrpcClient.client(vertx);
      String token = gw.agentToken("fleet");
      List<EchoAgent> agents = new ArrayList<>();
      List<Future<EchoAgent>> starting = new ArrayList<>();
      for (int i = 0; i < AGENTS; i++) {
        starting.add(EchoAgent.start(agentsClient, gw.address(), token, "load-" + i, 3));
      }
      for (Future<EchoAgent> f : starting) {
        agents.add(GatewayFixture.await(f));
      }

      int total = AGENTS * MESSAGES_PER_AGENT;
      Map<String, AtomicInteger> terminalsPerConversation = new ConcurrentHashMap<>();
      CountDownLatch allTerminals = new CountDownLatch(total);
      AtomicInteger extraTerminals = new AtomicInteger();
      List<GrpcClient> clientConnections = new ArrayList<>();
      for (int c = 0; c < CLIENTS; c++) {
        GrpcClient client = GrpcClient.client(vertx, new GrpcClientOptions().setMaxMessageSize(4 * 1024 * 1024));
        clientConnections.add(client);
        for (int a = c; a < AGENTS; a += CLIENTS) {
          String key = "load-" + a;
          terminalsPerConversation.put(key, new AtomicInteger());
          var req = GatewayFixture.await(client.request(gw.address(), ClientServiceGrpcClient.StreamEvents));
          req.headers().set("authorization", gw.admin().authorization());
          req.end(StreamEventsRequest.newBuilder().setConversationKey(key).setSinceEventId("0").build());
          GatewayFixture.await(req.response()).handler((ClientStreamEvent e) -> {
            if (e.hasDone() || e.hasError()) {
              if (terminalsPerConversation.get(key).incrementAndGet() > MESSAGES_PER_AGENT) {
                extraTerminals.incrementAndGet();
              }
              allTerminals.countDown();
            }
          });
        }
      }

      long t0 = System.nanoTime();
      List<Future<?>> sends = new ArrayList<>();
      for (int m = 0; m < MESSAGES_PER_AGENT; m++) {
        for (int a = 0; a < AGENTS; a++) {
          GrpcClient client = clientConnections.get(a % CLIENTS);
          String key = "load-" + a;
          String idem = key + "-" + m;
          sends.add(send(vertx, client, gw, ClientSendMessageRequest.newBuilder().setConversationKey(key).setContent("msg " + idem)
            .setIdempotencyKey(idem).build(), 1));
        }
      }
      for (Future<?> f : sends) {
        GatewayFixture.await(f);
      }
      assertThat(allTerminals.await(120, TimeUnit.SECONDS)).as("every request reached a terminal at its client").isTrue();
      long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
      Thread.sleep(500);
      assertThat(extraTerminals.get()).as("no request ended twice").isZero();
      assertThat(terminalsPerConversation.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(MESSAGES_PER_AGENT));
      assertThat(agents.stream().mapToInt(EchoAgent::handled).sum()).as("each request delivered to its agent exactly once").isEqualTo(total);

      // the ledger agrees: per conversation, MESSAGES_PER_AGENT inbound and MESSAGES_PER_AGENT done
      Map<String, Integer> kinds = new HashMap<>();
      for (int a = 0; a < AGENTS; a += 37) {
        var events = gw.admin().grpc().unary(ClientServiceGrpcClient.GetEvents, GetEventsRequest.newBuilder()
          .setConversationKey("load-" + a).setLimit(500).build(), gw.admin().authorization()).response().orElseThrow().getEventsList();
        events.forEach(e -> kinds.merge(e.getRawTransport(), 1, Integer::sum));
        assertThat(events.stream().filter(e -> e.getRawTransport().equals("done")).count()).isEqualTo(MESSAGES_PER_AGENT);
        assertThat(events.stream().filter(e -> e.getRawTransport().equals("inbound")).count()).isEqualTo(MESSAGES_PER_AGENT);
      }
      System.out.println("load: " + total + " requests, " + AGENTS + " agents, " + CLIENTS + " clients in " + elapsedMs + " ms");
      agents.forEach(EchoAgent::close);
      clientConnections.forEach(GrpcClient::close);
      agentsClient.close();
    }
  }
}
