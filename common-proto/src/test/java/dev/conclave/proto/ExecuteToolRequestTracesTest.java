package dev.conclave.proto;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.conclave.contract.ExecuteToolRequestTraces;
import dev.conclave.proto.coven.ExecuteToolRequest;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pack host's trace context rides in an ExecuteToolRequest (conclave_trace.proto, field 1000)
 * without changing what a pack built on coven.proto alone reads from it.
 */
class ExecuteToolRequestTracesTest {

  private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private static ExecuteToolRequest.Builder call() {
    return ExecuteToolRequest.newBuilder().setRequestId("call-1").setToolName("weather").setInputJson("{\"city\":\"Oslo\"}");
  }

  @Test
  void theContextSurvivesTheWireAndACovenOnlyPackReadsEveryDeclaredField() throws Exception {
    byte[] wire = ExecuteToolRequestTraces.attach(call(), Map.of("traceparent", TRACEPARENT, "tracestate", "k=v")).build().toByteArray();

    // what a pack built only on coven.proto's classes does with it
    ExecuteToolRequest received = ExecuteToolRequest.parseFrom(wire);

    assertThat(received.getRequestId()).isEqualTo("call-1");
    assertThat(received.getToolName()).isEqualTo("weather");
    assertThat(received.getInputJson()).isEqualTo("{\"city\":\"Oslo\"}");
    assertThat(received.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build()).isEqualTo(call().build());
    assertThat(received.getUnknownFields().hasField(1000)).as("the context is field 1000").isTrue();
    assertThat(ExecuteToolRequestTraces.of(received))
      .containsExactlyInAnyOrderEntriesOf(Map.of("traceparent", TRACEPARENT, "tracestate", "k=v"));
  }

  @Test
  void withoutAContextTheRequestIsByteForByteTheCovenOne() {
    assertThat(ExecuteToolRequestTraces.attach(call(), Map.of()).build().toByteArray()).isEqualTo(call().build().toByteArray());
    assertThat(ExecuteToolRequestTraces.of(call().build())).isEmpty();
  }

  @Test
  void anUnrelatedUnknownFieldOfTheWrongTypeReadsAsNoContext() throws Exception {
    // field 1000 as a varint instead of the map's length-delimited entries
    byte[] wire = ByteString.copyFrom(call().build().toByteArray())
      .concat(ByteString.copyFrom(new byte[] {(byte) 0xC0, 0x3E, 0x07})).toByteArray();
    assertThat(ExecuteToolRequestTraces.of(ExecuteToolRequest.parseFrom(wire))).isEmpty();
  }
}
