package dev.conclave.gateway.conformance;

import dev.conclave.gateway.sessions.SessionMetrics;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** What a broken or hostile agent or client can send, and that the gateway answers precisely and survives. */
class BadInputTest {

  private static GatewayFixture gw;
  private static Clients admin;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start(TestNode.builder().env("CONCLAVE_MAX_MESSAGE_BYTES", "65536"));
    admin = gw.admin();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  /** A message with only field 99 set: well-formed protobuf, but no payload this gateway knows. */
  private static Buffer unknownOneof() {
    // tag for field 99, wire type 2 (length-delimited), then 3 bytes
    return Buffer.buffer(new byte[] {(byte) 0x9a, 0x06, 3, 'a', 'b', 'c'});
  }

  @Test
  void garbageBytesEndTheStreamWithInvalidArgument() {
    byte[] junk = new byte[256];
    new Random(42).nextBytes(junk);
    junk[0] = (byte) 0xff;
    try (RawAgent agent = RawAgent.openRaw(gw.grpcClient(), gw.address(), gw.agentToken("junk"))) {
      agent.sendRaw(Buffer.buffer(junk));
      RawAgent.End end = agent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    }
    assertStillServing();
  }

  @Test
  void anUnknownOneofBeforeRegisteringIsRefused() {
    try (RawAgent agent = RawAgent.openRaw(gw.grpcClient(), gw.address(), gw.agentToken("odd"))) {
      agent.sendRaw(unknownOneof());
      RawAgent.End end = agent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(end.message()).contains("register_expected");
    }
  }

  @Test
  void anUnknownOneofAfterRegisteringIsCountedAndIgnored() {
    double before = counter(SessionMetrics.DropReason.UNKNOWN_MESSAGE);
    try (RawAgent agent = RawAgent.openRaw(gw.grpcClient(), gw.address(), gw.agentToken("future"))) {
      agent.sendRaw(Buffer.buffer(AgentMessage.newBuilder().setRegister(RawAgent.registration("future-1")).build().toByteArray()));
      assertThat(agent.next().hasWelcome()).isTrue();
      agent.sendRaw(unknownOneof());
      String r = admin.sendOk("future-1", "still there?", "future-1");
      assertThat(agent.next().getSendMessage().getRequestId()).as("the stream keeps working").isEqualTo(r);
      agent.sendRaw(Buffer.buffer(AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(r)
        .setDone(Done.getDefaultInstance())).build().toByteArray()));
      assertThat(agent.ended()).isFalse();
    }
    assertThat(counter(SessionMetrics.DropReason.UNKNOWN_MESSAGE)).isGreaterThan(before);
  }

  @Test
  void anOversizedAgentMessageIsResourceExhausted() {
    try (RawAgent agent = gw.connect("big", gw.agentToken("big"))) {
      String r = admin.sendOk("big", "say a lot", "big-1");
      agent.next();
      agent.respond(r, MessageResponse.newBuilder().setText("x".repeat(100_000)));
      assertThat(agent.awaitEnd().status()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
    }
    assertStillServing();
  }

  @Test
  void anOversizedClientMessageIsResourceExhausted() {
    var out = admin.send("big", "y".repeat(100_000), "big-client");
    assertThat(out.status()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
  }

  @Test
  void garbageInAClientCallIsInvalidArgument() {
    var method = io.vertx.grpc.common.ServiceMethod.client(dev.conclave.proto.coven.ClientServiceGrpcClient.SendMessage.serviceName(),
      "SendMessage", io.vertx.grpc.common.GrpcMessageEncoder.IDENTITY, io.vertx.grpc.common.GrpcMessageDecoder.IDENTITY);
    var out = admin.grpc().unary(method, Buffer.buffer(new byte[] {(byte) 0xff, (byte) 0xff, 0x01, 0x02}), admin.authorization());
    assertThat(out.status()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
  }

  @Test
  void textThePostgresqlCannotStoreIsInvalidArgumentNotInternal() {
    // a NUL character is valid protobuf and JSON, but no PostgreSQL text column takes it
    try (RawAgent agent = gw.connect("nul-agent", gw.agentToken("nul"))) {
      var out = admin.send("nul-agent", "before\u0000after", "nul-" + System.nanoTime());
      assertThat(out.status()).as(out.message()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(out.message()).contains("value_invalid").doesNotContain("Exception").doesNotContain("io.vertx");
      assertThat(agent.ended()).isFalse();
    }
    assertStillServing();
  }

  private static void assertStillServing() {
    try (RawAgent fine = gw.connect("fine-" + System.nanoTime(), gw.agentToken("fine"))) {
      fine.heartbeat();
      assertThat(fine.ended()).isFalse();
    }
  }

  private static double counter(SessionMetrics.DropReason reason) {
    var c = gw.node().runtime().context().metrics().find(MetricNames.GATEWAY_EVENTS_DROPPED)
      .tag("reason", reason.name().toLowerCase()).counter();
    return c == null ? 0 : c.count();
  }
}
