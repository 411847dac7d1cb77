package dev.conclave.e2e.gateway;

import dev.conclave.e2e.support.AgentProcess;
import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.Event;
import dev.conclave.proto.coven.GetEventsRequest;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Real processes failing: an agent killed mid-request, and the gateway restarted with work queued. */
class AgentAndGatewayFailuresIT {

  private Path root;
  private Vertx vertx;
  private PgUrl db;

  @BeforeEach
  void setUp() throws Exception {
    root = Files.createTempDirectory("conclave-e2e-gw");
    vertx = Vertx.vertx();
    db = TestDatabase.freshDatabase();
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    TestDatabase.deleteTree(root);
  }

  private Map<String, String> env() {
    return Map.of("CONCLAVE_PG_URL", db.full(), "CONCLAVE_ROLES", "gateway", "CONCLAVE_SHUTDOWN_GRACE_SECONDS", "5");
  }

  private static String send(GrpcCalls grpc, String admin, String agentId, String content, String key) {
    var out = grpc.unary(ClientServiceGrpcClient.SendMessage, ClientSendMessageRequest.newBuilder()
      .setConversationKey(agentId).setContent(content).setIdempotencyKey(key).build(), "Bearer " + admin);
    assertThat(out.status()).as(out.message()).isEqualTo(GrpcStatus.OK);
    return out.response().orElseThrow().getMessageId();
  }

  /** The ledger's events of one request, waiting until its terminal event is there. */
  private static List<Event> terminalOf(GrpcCalls grpc, String admin, String agentId, String requestId) throws InterruptedException {
    for (int i = 0; i < 150; i++) {
      List<Event> events = grpc.unary(ClientServiceGrpcClient.GetEvents, GetEventsRequest.newBuilder().setConversationKey(agentId).setLimit(500).build(),
        "Bearer " + admin).response().orElseThrow().getEventsList().stream()
        .filter(e -> e.getRawPayloadRef().equals("request/" + requestId))
        .filter(e -> List.of("done", "error", "cancelled").contains(e.getRawTransport()))
        .toList();
      if (!events.isEmpty()) {
        return events;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("request " + requestId + " never ended");
  }

  @Test
  void anAgentKilledMidRequestEndsItRecoverablyAndNeverGetsItAgain() throws Exception {
    Path data = root.resolve("node");
    try (NodeProcess node = NodeProcess.start(data, env())) {
      node.awaitReady(Duration.ofSeconds(60));
      String admin = Files.readString(data.resolve("admin.token")).trim();
      Map<String, String> cli = Map.of("CONCLAVE_DATA_DIR", data.toString(), "CONCLAVE_PG_URL", db.full());
      String agentToken = NodeProcess.cli(cli, "token", "--new-agent", "crashy");
      GrpcCalls grpc = new GrpcCalls(vertx, node.grpcPort());

      String first;
      String second;
      try (AgentProcess agent = AgentProcess.start(node.grpcPort(), agentToken, "crashy", "hang")) {
        agent.await("registered");
        first = send(grpc, admin, "crashy", "one", "crashy-1");
        second = send(grpc, admin, "crashy", "two", "crashy-2");
        assertThat(agent.await("got")).isEqualTo(first);
        agent.kill();
      }
      List<Event> ended = terminalOf(grpc, admin, "crashy", first);
      assertThat(ended).hasSize(1);
      assertThat(ended.get(0).getRawTransport()).isEqualTo("error");
      assertThat(ended.get(0).getText()).isEqualTo("agent disconnected");

      try (AgentProcess again = AgentProcess.start(node.grpcPort(), agentToken, "crashy", "echo")) {
        again.await("registered");
        assertThat(again.await("got")).as("the killed request is not delivered twice").isEqualTo(second);
        assertThat(terminalOf(grpc, admin, "crashy", second).get(0).getRawTransport()).isEqualTo("done");
        assertThat(again.poll("got", 500)).isNull();
      }
      grpc.close();
      assertThat(node.terminate(Duration.ofSeconds(15))).isZero();
    }
  }

  @Test
  void requestsQueuedBeforeAGatewayRestartAreDeliveredInOrderAfterIt() throws Exception {
    Path data = root.resolve("node");
    String admin;
    String agentToken;
    List<String> queued;
    try (NodeProcess node = NodeProcess.start(data, env())) {
      node.awaitReady(Duration.ofSeconds(60));
      admin = Files.readString(data.resolve("admin.token")).trim();
      agentToken = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString(), "CONCLAVE_PG_URL", db.full()), "token", "--new-agent", "patient");
      GrpcCalls grpc = new GrpcCalls(vertx, node.grpcPort());
      try (AgentProcess agent = AgentProcess.start(node.grpcPort(), agentToken, "patient", "echo")) {
        agent.await("registered");
      }
      queued = List.of(send(grpc, admin, "patient", "a", "p-1"), send(grpc, admin, "patient", "b", "p-2"), send(grpc, admin, "patient", "c", "p-3"));
      grpc.close();
      assertThat(node.terminate(Duration.ofSeconds(15))).isZero();
    }
    try (NodeProcess node = NodeProcess.start(data, env())) {
      node.awaitReady(Duration.ofSeconds(60));
      GrpcCalls grpc = new GrpcCalls(vertx, node.grpcPort());
      try (AgentProcess agent = AgentProcess.start(node.grpcPort(), agentToken, "patient", "echo")) {
        agent.await("registered");
        for (String id : queued) {
          assertThat(agent.await("got")).isEqualTo(id);
        }
        for (String id : queued) {
          assertThat(terminalOf(grpc, admin, "patient", id).get(0).getRawTransport()).isEqualTo("done");
        }
      }
      grpc.close();
      assertThat(node.terminate(Duration.ofSeconds(15))).isZero();
    }
  }
}
