package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.testing.GrpcWire;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.RegisterAgent;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Size limits hold after decompression, on every kind of call: a small gzip frame that inflates
 * past {@code CONCLAVE_MAX_MESSAGE_BYTES} is refused before it is stored, a frame flagged compressed
 * in a call that named no encoding is refused instead of hanging, and no stored event is larger
 * than {@code CONCLAVE_MAX_EVENT_BYTES}, so history can always be paged.
 */
class MessageLimitsTest {

  private static final int MAX_MESSAGE = 65536;
  private static final int MAX_EVENT = 16384;
  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private static GatewayFixture gw;
  private static Clients admin;
  private static GrpcWire wire;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start(TestNode.builder()
      .env("CONCLAVE_MAX_MESSAGE_BYTES", String.valueOf(MAX_MESSAGE))
      .env("CONCLAVE_MAX_EVENT_BYTES", String.valueOf(MAX_EVENT)));
    admin = gw.admin();
    wire = new GrpcWire(gw.vertx(), gw.node().grpcPort());
  }

  @AfterAll
  static void stop() {
    wire.close();
    gw.close();
  }

  private static Map<String, String> auth(String... more) {
    java.util.HashMap<String, String> h = new java.util.HashMap<>();
    h.put("authorization", admin.authorization());
    for (int i = 0; i < more.length; i += 2) {
      h.put(more[i], more[i + 1]);
    }
    return h;
  }

  private static byte[] sendMessage(String key, int contentBytes) {
    return ClientSendMessageRequest.newBuilder().setConversationKey(key).setContent("a".repeat(contentBytes))
      .setIdempotencyKey("limits-" + System.nanoTime()).build().toByteArray();
  }

  private static long storedEvents(String key) {
    var page = admin.grpc().unary(ClientServiceGrpcClient.GetEvents, GetEventsRequest.newBuilder().setConversationKey(key).build(),
      admin.authorization());
    assertThat(page.status()).isEqualTo(GrpcStatus.OK);
    return page.response().orElseThrow().getEventsCount();
  }

  @Test
  void aGzipFrameThatInflatesPastTheLimitIsRefusedAndNothingIsStored() {
    try (RawAgent agent = gw.connect("bomb-target", gw.agentToken("bomb-target"))) {
      byte[] compressed = GrpcWire.gzip(sendMessage("bomb-target", 1024 * 1024));
      assertThat(compressed.length).isLessThan(MAX_MESSAGE);
      var answer = wire.call("/coven.ClientService/SendMessage", auth("grpc-encoding", "gzip"), GrpcWire.frame(true, compressed), PATIENCE);
      assertThat(answer.grpcStatus()).as(answer.toString()).isEqualTo(String.valueOf(GrpcStatus.RESOURCE_EXHAUSTED.code));
      assertThat(answer.grpcMessage()).contains("message_too_large").doesNotContain("Exception");
      assertThat(storedEvents("bomb-target")).isZero();
    }
  }

  @Test
  void aSmallGzipFrameIsAccepted() {
    try (RawAgent agent = gw.connect("gzip-ok", gw.agentToken("gzip-ok"))) {
      byte[] compressed = GrpcWire.gzip(sendMessage("gzip-ok", 2000));
      var answer = wire.call("/coven.ClientService/SendMessage", auth("grpc-encoding", "gzip"), GrpcWire.frame(true, compressed), PATIENCE);
      assertThat(answer.grpcStatus()).as(answer.toString()).isEqualTo("0");
    }
  }

  @Test
  void aCompressedFlagWithoutAnEncodingIsInvalidArgumentNotAHang() {
    byte[] plain = sendMessage("no-encoding", 10);
    var answer = wire.call("/coven.ClientService/SendMessage", auth(), GrpcWire.frame(true, plain), PATIENCE);
    assertThat(answer.timedOut()).as("the call hung").isFalse();
    assertThat(answer.grpcStatus()).as(answer.toString()).isEqualTo(String.valueOf(GrpcStatus.INVALID_ARGUMENT.code));
    assertThat(answer.grpcMessage()).contains("grpc-encoding");
  }

  @Test
  void anEncodingThisNodeDoesNotSpeakIsUnimplemented() {
    var answer = wire.call("/coven.ClientService/SendMessage", auth("grpc-encoding", "snappy"),
      GrpcWire.frame(true, sendMessage("snappy", 10)), PATIENCE);
    assertThat(answer.grpcStatus()).as(answer.toString()).isEqualTo(String.valueOf(GrpcStatus.UNIMPLEMENTED.code));
  }

  @Test
  void otherContentTypesOnTheGrpcPortAreUnsupportedNotServerErrors() {
    for (String type : new String[] {"application/json", "text/plain", "application/grpc+xml"}) {
      for (String path : new String[] {"/coven.ClientService/SendMessage", "/coven.ClientService/NoSuchMethod", "/nothing"}) {
        var answer = wire.call(path, auth("content-type", type), "{}".getBytes(), PATIENCE);
        assertThat(answer.httpStatus()).as(type + " " + path + " " + answer).isLessThan(500);
      }
    }
  }

  @Test
  void aGzipBombOnAnAgentStreamIsResourceExhausted() {
    byte[] register = AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder().setAgentId("bomb").setName("n".repeat(1024 * 1024)))
      .build().toByteArray();
    var answer = wire.call("/coven.CovenControl/AgentStream",
      Map.of("authorization", "Bearer " + gw.agentToken("bomb"), "grpc-encoding", "gzip"), GrpcWire.frame(true, GrpcWire.gzip(register)), PATIENCE);
    assertThat(answer.grpcStatus()).as(answer.toString()).isEqualTo(String.valueOf(GrpcStatus.RESOURCE_EXHAUSTED.code));
    assertThat(answer.grpcMessage()).contains("message_too_large");
  }

  /** The agent's stream decodes its frames itself: a compressed flag other than 0 or 1 is refused there too (issue 40, finding 11). */
  @Test
  void aCompressedFlagOtherThanZeroOrOneIsRefusedOnAnAgentStream() {
    byte[] register = AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder().setAgentId("flagged").setName("flagged"))
      .build().toByteArray();
    var answer = wire.call("/coven.CovenControl/AgentStream", Map.of("authorization", "Bearer " + gw.agentToken("flagged")),
      GrpcWire.frame(0xFF, register), PATIENCE);
    assertThat(answer.grpcStatus()).as(answer.toString()).isEqualTo(String.valueOf(GrpcStatus.INVALID_ARGUMENT.code));
    assertThat(answer.grpcMessage()).contains("compressed_flag_invalid");
  }

  @Test
  void anOpenServiceCallWithoutAMessageIsAnsweredNotLeftWaiting() {
    var answer = wire.call("/grpc.health.v1.Health/Check", Map.of(), new byte[0], PATIENCE);
    assertThat(answer.timedOut()).as("the call hung").isFalse();
    assertThat(answer.grpcStatus()).as(answer.toString()).isEqualTo(String.valueOf(GrpcStatus.INVALID_ARGUMENT.code));
    // a frame that declares more bytes than the call carries
    var cut = wire.call("/grpc.health.v1.Health/Check", Map.of(), new byte[] {0, 0, 0, 3, 85, 0}, PATIENCE);
    assertThat(cut.timedOut()).as("the call hung").isFalse();
    assertThat(cut.grpcStatus()).as(cut.toString()).isEqualTo(String.valueOf(GrpcStatus.INVALID_ARGUMENT.code));
  }

  @Test
  void theOpenHealthServiceTakesNoCompressedMessages() {
    var answer = wire.call("/grpc.health.v1.Health/Check", Map.of("grpc-encoding", "gzip"),
      GrpcWire.frame(true, GrpcWire.gzip(new byte[8 * 1024 * 1024])), PATIENCE);
    assertThat(answer.grpcStatus()).as(answer.toString()).isEqualTo(String.valueOf(GrpcStatus.UNIMPLEMENTED.code));
  }

  @Test
  void aClientMessageLargerThanAStoredEventIsRefused() {
    try (RawAgent agent = gw.connect("big-event", gw.agentToken("big-event"))) {
      var out = admin.send("big-event", "b".repeat(MAX_EVENT + 1), "big-event-1");
      assertThat(out.status()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
      assertThat(out.message()).contains("event_too_large").contains(String.valueOf(MAX_EVENT));
      assertThat(storedEvents("big-event")).isZero();
      // the idle agent's next message goes to it at once, as if the refused one had never come
      String next = admin.sendOk("big-event", "a small one", "big-event-2");
      assertThat(agent.next(2_000).getSendMessage().getRequestId()).isEqualTo(next);
    }
  }

  @Test
  void anAgentEventLargerThanAStoredEventEndsTheStreamAndIsNotStored() {
    try (RawAgent agent = gw.connect("big-events", gw.agentToken("big-events"))) {
      String r = admin.sendOk("big-events", "say a lot", "big-events-1");
      agent.next();
      agent.respond(r, MessageResponse.newBuilder().setText("x".repeat(MAX_EVENT + 1)));
      RawAgent.End end = agent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
      assertThat(end.message()).contains("event_too_large");
    }
    // the client's message, and no text event of that size
    var page = admin.grpc().unary(ClientServiceGrpcClient.GetEvents, GetEventsRequest.newBuilder().setConversationKey("big-events").build(),
      admin.authorization()).response().orElseThrow();
    assertThat(page.getEventsList()).allSatisfy(e -> assertThat(e.getSerializedSize()).isLessThan(MAX_EVENT + 1024));
  }
}
