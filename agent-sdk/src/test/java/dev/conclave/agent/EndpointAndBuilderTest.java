package dev.conclave.agent;

import dev.conclave.agent.client.AgentClient;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(VertxExtension.class)
class EndpointAndBuilderTest {

  @Test
  void parsesHostPortAndBracketedIpv6() {
    assertThat(Endpoint.parse("gw-1.example:50051")).isEqualTo(new Endpoint("gw-1.example", 50051));
    assertThat(Endpoint.parse(" [::1]:7000 ")).isEqualTo(new Endpoint("::1", 7000));
    assertThat(new Endpoint("::1", 7000)).hasToString("[::1]:7000");
    assertThat(new Endpoint("localhost", 1)).hasToString("localhost:1");
  }

  @Test
  void rejectsMalformedEndpointsNamingTheValue() {
    assertThatThrownBy(() -> Endpoint.parse("no-port")).hasMessageContaining("no-port");
    assertThatThrownBy(() -> Endpoint.parse("host:")).hasMessageContaining("host:");
    assertThatThrownBy(() -> Endpoint.parse("host:http")).hasMessageContaining("not a number");
    assertThatThrownBy(() -> Endpoint.parse("host:70000")).hasMessageContaining("70000");
  }

  @Test
  void builderRequiresEndpointsTokenAndHandler(Vertx vertx) {
    assertThatThrownBy(() -> AgentClient.builder(vertx).token("t").handler(new EchoHandler()).build())
      .hasMessageContaining("endpoint");
    assertThatThrownBy(() -> AgentClient.builder(vertx).endpoints("h:1").handler(new EchoHandler()).build())
      .hasMessageContaining("token");
    assertThatThrownBy(() -> AgentClient.builder(vertx).endpoints("h:1").token("t").build())
      .hasMessageContaining("handler");
    assertThatThrownBy(() -> AgentClient.builder(vertx).endpoints("h:1").token("t").handler(new EchoHandler())
      .heartbeatInterval(java.time.Duration.ZERO).build()).hasMessageContaining("heartbeatInterval");
  }

  @Test
  void agentIdDefaultsToAUuidAndNameToTheId(Vertx vertx) {
    AgentClient c = AgentClient.builder(vertx).endpoints("h:1").token("t").handler(new EchoHandler()).build();
    assertThat(java.util.UUID.fromString(c.agentId())).isNotNull();
  }

  @Test
  void featuresUseTheirWireNames() {
    assertThat(Feature.TOKEN_USAGE.wireName()).isEqualTo("token_usage");
    assertThat(Feature.TOOL_STATES.wireName()).isEqualTo("tool_states");
    assertThat(Feature.INJECTION.wireName()).isEqualTo("injection");
    assertThat(Feature.CANCELLATION.wireName()).isEqualTo("cancellation");
  }
}
