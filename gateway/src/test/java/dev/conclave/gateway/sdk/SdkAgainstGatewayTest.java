package dev.conclave.gateway.sdk;

import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.Backoff;
import dev.conclave.agent.EchoHandler;
import dev.conclave.agent.Feature;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.Injection;
import dev.conclave.agent.InjectionDecision;
import dev.conclave.agent.ResponseStream;
import dev.conclave.agent.Session;
import dev.conclave.agent.client.AgentClient;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The Java agent SDK against the real gateway: the library the tests and reference agents use. */
class SdkAgainstGatewayTest {

  /** Echoes, asks for approval on "approve", waits to be cancelled on "wait", accepts injections. */
  static final class ScriptedHandler implements AgentHandler {
    final List<String> injected = new CopyOnWriteArrayList<>();
    final List<String> cancelled = new CopyOnWriteArrayList<>();
    /** Completed when the agent holds the "wait" request, so that cancelling it finds it in flight. */
    final CompletableFuture<Void> waiting = new CompletableFuture<>();

    @Override
    public Future<Void> handle(IncomingMessage message, ResponseStream response) {
      return switch (message.content()) {
        case "approve" -> response.requestApproval("tool-1", "deploy", "{}")
          .compose(decision -> response.done(decision.approved() ? "deployed" : "not deployed"));
        case "wait" -> {
          waiting.complete(null);
          yield response.cancellation().compose(reason -> response.cancelled(reason));
        }
        default -> new EchoHandler().handle(message, response);
      };
    }

    @Override
    public Future<Void> onCancel(String requestId, String reason) {
      cancelled.add(requestId);
      return Future.succeededFuture();
    }

    @Override
    public Future<InjectionDecision> onInjection(Injection injection) {
      injected.add(injection.content());
      return Future.succeededFuture(InjectionDecision.accept());
    }
  }

  private static AgentClient agent(GatewayFixture gw, List<String> endpoints, String token, String id, AgentHandler handler) {
    return AgentClient.builder(gw.vertx())
      .endpoints(endpoints.toArray(new String[0]))
      .token(token)
      .agentId(id)
      .name(id)
      .features(Feature.TOKEN_USAGE, Feature.INJECTION, Feature.CANCELLATION)
      .backoff(new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0.1))
      .handler(handler)
      .build();
  }

  @Test
  void theSdkDoesTheWholeProtocolWithTheGateway() throws Exception {
    try (GatewayFixture gw = GatewayFixture.start()) {
      Clients admin = gw.admin();
      ScriptedHandler handler = new ScriptedHandler();
      AgentClient client = agent(gw, List.of("127.0.0.1:" + gw.node().grpcPort()), gw.agentToken("sdk"), "sdk-1", handler);
      Session session = GatewayFixture.await(client.start());
      assertThat(session.serverId()).isEqualTo(gw.node().runtime().config().nodeId());
      WebClient web = WebClient.create(gw.vertx());
      try (EventTap tap = admin.stream("sdk-1", null)) {
        admin.sendOk("sdk-1", "hello", "sdk-1");
        List<ClientStreamEvent> echo = tap.until(EventTap::terminal);
        assertThat(echo.get(echo.size() - 1).hasDone()).isTrue();
        assertThat(echo.stream().filter(ClientStreamEvent::hasText).map(e -> e.getText().getContent()).reduce("", String::concat)).contains("hello");
      }
      try (EventTap tap = admin.stream("sdk-1", null)) {
        admin.sendOk("sdk-1", "approve", "sdk-2");
        ClientStreamEvent asked = tap.until(ClientStreamEvent::hasToolApproval).stream().filter(ClientStreamEvent::hasToolApproval).findFirst().orElseThrow();
        assertThat(asked.getToolApproval().getToolName()).isEqualTo("deploy");
        var ok = admin.grpc().unary(ClientServiceGrpcClient.ApproveTool, ApproveToolRequest.newBuilder().setAgentId("sdk-1")
          .setToolId("tool-1").setApproved(true).build(), admin.authorization()).response().orElseThrow();
        assertThat(ok.getSuccess()).isTrue();
        List<ClientStreamEvent> rest = tap.until(EventTap::terminal);
        assertThat(rest.get(rest.size() - 1).getDone().getFullResponse()).isEqualTo("deployed");

        String waiting = admin.sendOk("sdk-1", "wait", "sdk-3");
        handler.waiting.get(10, TimeUnit.SECONDS);
        var cancel = GatewayFixture.await(web.post(gw.node().httpPort(), "127.0.0.1", "/api/v1/gateway/requests/" + waiting + "/cancel")
          .putHeader("authorization", admin.authorization()).sendJsonObject(new JsonObject().put("reason", "enough")));
        assertThat(cancel.bodyAsJsonObject().getString("state")).isEqualTo("cancelling");
        List<ClientStreamEvent> ended = tap.until(EventTap::terminal);
        assertThat(ended.get(ended.size() - 1).getError().getMessage()).isEqualTo("cancelled: enough");

        var inject = GatewayFixture.await(web.post(gw.node().httpPort(), "127.0.0.1", "/api/v1/gateway/agents/sdk-1/inject")
          .putHeader("authorization", admin.authorization()).sendJsonObject(new JsonObject().put("content", "fyi")));
        assertThat(inject.statusCode()).isEqualTo(202);
        String injectionId = inject.bodyAsJsonObject().getString("injectionId");
        String state = "";
        for (int i = 0; i < 50 && !state.equals("accepted"); i++) {
          state = GatewayFixture.await(web.get(gw.node().httpPort(), "127.0.0.1", "/api/v1/gateway/injections/" + injectionId)
            .putHeader("authorization", admin.authorization()).send()).bodyAsJsonObject().getString("state");
          sleep(100);
        }
        assertThat(state).isEqualTo("accepted");
        assertThat(handler.injected).containsExactly("fyi");
      } finally {
        web.close();
        GatewayFixture.await(client.stop());
      }
    }
  }

  @Test
  void onShutdownTheSdkMovesToTheNextGatewayAndKeepsItsQueue() throws InterruptedException {
    PgUrl db = TestDatabase.freshDatabase();
    // gateway nodes on one database are one cluster, and nodes serving the same agents share one signing secret
    int hzFirst = FreePorts.next();
    int hzSecond = FreePorts.next();
    String members = "127.0.0.1:" + hzFirst + ",127.0.0.1:" + hzSecond;
    CompletableFuture<GatewayFixture> starting = CompletableFuture.supplyAsync(() -> GatewayFixture.start(clustered(db, members, hzFirst)));
    try (GatewayFixture second = GatewayFixture.start(clustered(db, members, hzSecond))) {
      GatewayFixture first = starting.join();
      String token = first.agentToken("mover");
      Promise<Void> shutdownSeen = Promise.promise();
      EchoHandler echo = new EchoHandler();
      AgentHandler handler = new AgentHandler() {
        @Override
        public Future<Void> handle(IncomingMessage message, ResponseStream response) {
          return echo.handle(message, response);
        }

        @Override
        public void onShutdown(String reason) {
          shutdownSeen.tryComplete();
        }
      };
      // the agent lives on the surviving fixture's Vert.x: closing 'first' closes its own
      AgentClient client = agent(second, List.of("127.0.0.1:" + first.node().grpcPort(), "127.0.0.1:" + second.node().grpcPort()),
        token, "mover-1", handler);
      try {
        assertThat(GatewayFixture.await(client.start()).serverId()).isEqualTo(first.node().runtime().config().nodeId());
        first.close();
        GatewayFixture.await(shutdownSeen.future());
        // the SDK reconnects with backoff; on a loaded machine that takes longer than a stream event's patience
        String secondId = second.node().runtime().config().nodeId();
        for (long until = System.currentTimeMillis() + 30_000; System.currentTimeMillis() < until
          && !client.session().map(s -> s.serverId().equals(secondId)).orElse(false); ) {
          Thread.sleep(100);
        }
        Clients admin = second.clients(second.token(second.newPrincipal(dev.conclave.platform.auth.PrincipalType.CLIENT, "ops",
          dev.conclave.platform.auth.PrincipalStatus.APPROVED, List.of("admin"))));
        try (EventTap tap = admin.stream("mover-1", null)) {
          admin.sendOk("mover-1", "are you there?", "mover-1");
          List<ClientStreamEvent> events = tap.until(EventTap::terminal);
          assertThat(events.get(events.size() - 1).hasDone()).isTrue();
        }
        assertThat(client.session().orElseThrow().serverId()).isEqualTo(second.node().runtime().config().nodeId());
      } finally {
        GatewayFixture.await(client.stop());
      }
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static TestNode.Builder clustered(PgUrl db, String members, int hazelcastPort) {
    return TestNode.builder().database(db)
      .env("CONCLAVE_AUTH_SECRET", "sdk-handover-secret-0123456789abcdef0123456789")
      .env("CONCLAVE_CLUSTER_MEMBERS", members)
      .env("CONCLAVE_CLUSTER_HOST", "127.0.0.1")
      .env("CONCLAVE_CLUSTER_PORT", Integer.toString(hazelcastPort))
      .env("CONCLAVE_EVENTBUS_PORT", Integer.toString(FreePorts.next()));
  }
}
