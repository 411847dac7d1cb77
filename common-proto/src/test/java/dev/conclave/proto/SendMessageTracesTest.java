package dev.conclave.proto;

import dev.conclave.contract.SendMessageTraces;
import dev.conclave.proto.coven.SendMessage;
import dev.conclave.proto.coven.ServerMessage;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The trace context rides in a SendMessage without changing what a Coven agent reads from it. */
class SendMessageTracesTest {

  private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private static SendMessage.Builder work() {
    return SendMessage.newBuilder().setRequestId("r-1").setThreadId("t-1").setSender("alice").setContent("hello");
  }

  @Test
  void theContextSurvivesTheWireInsideTheServerMessage() throws Exception {
    SendMessage.Builder msg = SendMessageTraces.attach(work(), Map.of("traceparent", TRACEPARENT, "tracestate", "k=v"));
    byte[] wire = ServerMessage.newBuilder().setSendMessage(msg).build().toByteArray();

    SendMessage received = ServerMessage.parseFrom(wire).getSendMessage();

    assertThat(SendMessageTraces.of(received)).containsExactlyInAnyOrderEntriesOf(Map.of("traceparent", TRACEPARENT, "tracestate", "k=v"));
    // what a Coven agent reads: every declared field as sent
    assertThat(received.getRequestId()).isEqualTo("r-1");
    assertThat(received.getContent()).isEqualTo("hello");
    assertThat(received.toBuilder().setUnknownFields(com.google.protobuf.UnknownFieldSet.getDefaultInstance()).build())
      .isEqualTo(work().build());
  }

  @Test
  void withoutAContextTheMessageIsByteForByteTheCovenOne() {
    assertThat(SendMessageTraces.attach(work(), Map.of()).build().toByteArray()).isEqualTo(work().build().toByteArray());
    assertThat(SendMessageTraces.of(work().build())).isEmpty();
  }

  @Test
  void anUnrelatedUnknownFieldOfTheWrongTypeReadsAsNoContext() throws Exception {
    // field 1000 as a varint instead of the map's length-delimited entries
    byte[] wire = com.google.protobuf.ByteString.copyFrom(work().build().toByteArray())
      .concat(com.google.protobuf.ByteString.copyFrom(new byte[] {(byte) 0xC0, 0x3E, 0x07})).toByteArray();
    assertThat(SendMessageTraces.of(SendMessage.parseFrom(wire))).isEmpty();
  }
}
