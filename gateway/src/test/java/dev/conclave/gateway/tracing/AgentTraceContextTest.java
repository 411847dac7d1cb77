package dev.conclave.gateway.tracing;

import dev.conclave.contract.SendMessageTraces;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.testing.MemorySpanExporterProvider;
import dev.conclave.platform.tracing.RequestSpans;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.SendMessage;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent gets the trace context of the request it is sent (issue 44: its own backend calls join
 * the trace), in the SendMessage, as a field Coven agents that do not know it skip; without tracing
 * the SendMessage is the Coven one, byte for byte.
 */
class AgentTraceContextTest {

  private static final String TRACE_ID = "6df92f3577b34da6a3ce929d0e0e4738";

  @AfterEach
  void clear() {
    System.clearProperty("otel.traces.exporter");
    System.clearProperty("otel.bsp.schedule.delay");
    MemorySpanExporterProvider.SPANS.reset();
  }

  @Test
  void theAgentReceivesTheRequestsSpanAsItsParent() {
    System.setProperty("otel.traces.exporter", "memory");
    System.setProperty("otel.bsp.schedule.delay", "50");
    MemorySpanExporterProvider.SPANS.reset();
    SendMessage work;
    try (GatewayFixture gw = GatewayFixture.start()) {
      Principal owner = gw.newMember("atc-owner");
      try (RawAgent agent = gw.connect("atc-agent", gw.agentTokenOwnedBy("atc-agent", owner.id()))) {
        send(gw.clients(gw.token(owner)), "atc-agent", Optional.of("00-" + TRACE_ID + "-00f067aa0ba902b7-01"), "k-1");
        work = agent.next().getSendMessage();
        agent.respond(work.getRequestId(), MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      }
    }
    Map<String, String> context = SendMessageTraces.of(work);
    assertThat(context).as("the trace context the agent received").containsKey("traceparent");
    String[] traceparent = context.get("traceparent").split("-");
    assertThat(traceparent[1]).as("the client's trace").isEqualTo(TRACE_ID);
    SpanData request = MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream()
      .filter(s -> s.getName().equals(RequestSpans.REQUEST) && s.getTraceId().equals(TRACE_ID)).findFirst().orElseThrow();
    assertThat(traceparent[2]).as("the agent's calls are children of the request's span").isEqualTo(request.getSpanId());
    assertThat(traceparent[3]).as("sampled").isEqualTo("01");
  }

  @Test
  void withoutTracingTheAgentGetsTheCovenMessageUnchanged() {
    SendMessage work;
    try (GatewayFixture gw = GatewayFixture.start()) {
      Principal owner = gw.newMember("atc-owner2");
      try (RawAgent agent = gw.connect("atc-agent2", gw.agentTokenOwnedBy("atc-agent2", owner.id()))) {
        // a client's traceparent with tracing off is not passed on either
        send(gw.clients(gw.token(owner)), "atc-agent2", Optional.of("00-" + TRACE_ID + "-00f067aa0ba902b7-01"), "k-2");
        work = agent.next().getSendMessage();
        agent.respond(work.getRequestId(), MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      }
    }
    assertThat(work.getUnknownFields().asMap()).as("fields coven.proto does not declare").isEmpty();
    assertThat(work.getContent()).isEqualTo("hello");
  }

  private static void send(Clients client, String conversation, Optional<String> traceparent, String key) {
    try {
      var response = client.grpc().open(ClientServiceGrpcClient.SendMessage, client.authorization()).compose(request -> {
        traceparent.ifPresent(t -> request.headers().set("traceparent", t));
        return request.send(ClientSendMessageRequest.newBuilder().setConversationKey(conversation).setContent("hello")
          .setIdempotencyKey(key).build());
      }).compose(r -> r.last().map(body -> {
        assertThat(r.status()).isEqualTo(GrpcStatus.OK);
        return body;
      })).await(20, TimeUnit.SECONDS);
      assertThat(response.getMessageId()).isNotEmpty();
    } catch (Exception e) {
      throw new AssertionError("SendMessage failed", e);
    }
  }
}
