package dev.conclave.platform.server;

import com.google.protobuf.Empty;
import dev.conclave.platform.testing.GrpcWire;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gRPC message's first byte, the compressed flag, is 0 or 1 (gRPC over HTTP/2, "Length-Prefixed-Message");
 * any other value is refused with INVALID_ARGUMENT on every method, the open ones included (issue 40, finding 11).
 */
class CompressedFlagTest {

  private static final Duration PATIENCE = Duration.ofSeconds(10);
  private static final String GET_ME = "/coven.ClientService/GetMe";
  private static final String HEALTH = "/grpc.health.v1.Health/Check";

  private static Vertx vertx;
  private static TestNode node;
  private static GrpcWire wire;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole()).start();
    vertx = Vertx.vertx();
    wire = new GrpcWire(vertx, node.grpcPort());
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void flagsOtherThanZeroOrOneAreRefused() {
    byte[] empty = Empty.getDefaultInstance().toByteArray();
    for (int flag : List.of(0x02, 0x80, 0xFF)) {
      var answer = wire.call(GET_ME, auth(), GrpcWire.frame(flag, empty), PATIENCE);
      assertThat(answer.grpcStatus()).as("flag %02x: %s", flag, answer.grpcMessage()).isEqualTo("3");
      assertThat(answer.grpcMessage()).startsWith("compressed_flag_invalid").contains(String.format("0x%02X", flag));
      var health = wire.call(HEALTH, Map.of(), GrpcWire.frame(flag, new byte[0]), PATIENCE);
      assertThat(health.grpcStatus()).as("health, flag %02x: %s", flag, health.grpcMessage()).isEqualTo("3");
      assertThat(health.grpcMessage()).startsWith("compressed_flag_invalid");
    }
  }

  @Test
  void aBadFlagAfterAGoodMessageIsFoundWhereverTheFrameStarts() {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    byte[] payload = new byte[300];
    body.writeBytes(GrpcWire.frame(0, payload));
    body.writeBytes(GrpcWire.frame(0xFF, payload));
    var answer = wire.call(GET_ME, auth(), body.toByteArray(), PATIENCE);
    assertThat(answer.grpcStatus()).as(answer.grpcMessage()).isEqualTo("3");
    assertThat(answer.grpcMessage()).startsWith("compressed_flag_invalid");
  }

  @Test
  void zeroAndOneStillWork() {
    assertThat(wire.call(GET_ME, auth(), GrpcWire.frame(0, Empty.getDefaultInstance().toByteArray()), PATIENCE).grpcStatus()).isEqualTo("0");
    var gzip = wire.call(GET_ME, Map.of("authorization", "Bearer " + node.adminToken(), "grpc-encoding", "gzip"),
      GrpcWire.frame(1, GrpcWire.gzip(Empty.getDefaultInstance().toByteArray())), PATIENCE);
    assertThat(gzip.grpcStatus()).as(gzip.grpcMessage()).isEqualTo("0");
    assertThat(wire.call(HEALTH, Map.of(), GrpcWire.frame(0, new byte[0]), PATIENCE).grpcStatus())
      .isEqualTo("0");
  }

  private static Map<String, String> auth() {
    return Map.of("authorization", "Bearer " + node.adminToken());
  }
}
