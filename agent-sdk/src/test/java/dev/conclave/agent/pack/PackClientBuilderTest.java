package dev.conclave.agent.pack;

import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.client.PackClientBuilder;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the builders refuse, before anything reaches the gateway. */
class PackClientBuilderTest extends PackTestBase {

  private static PackTool.Builder tool(String name) {
    return PackTool.builder(name).handler(call -> Future.succeededFuture("{}"));
  }

  @Test
  void toolNamesFollowThePattern() {
    assertThat(tool("get_weather.v2-beta").build().name()).isEqualTo("get_weather.v2-beta");
    assertThat(tool("x".repeat(64)).build().name()).hasSize(64);
    for (String bad : new String[] {"", "has space", "slash/name", "x".repeat(65), "ünïcode"}) {
      assertThatThrownBy(() -> tool(bad).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tool name must match");
    }
    assertThatThrownBy(() -> tool(null).build()).hasMessageContaining("tool name must match");
  }

  @Test
  void theInputSchemaIsAJsonObject() {
    assertThat(tool("t").build().inputSchemaJson()).isEqualTo("{\"type\":\"object\"}");
    for (String bad : new String[] {"[]", "\"object\"", "{not json", "", "null"}) {
      assertThatThrownBy(() -> tool("t").inputSchema(bad).build()).hasMessageContaining("must be a JSON object");
    }
  }

  @Test
  void timeoutsStayWithinAnHour() {
    assertThat(tool("t").timeoutSeconds(3600).build().timeoutSeconds()).isEqualTo(3600);
    assertThat(tool("t").timeoutSeconds(0).build().timeoutSeconds()).isZero();
    assertThatThrownBy(() -> tool("t").timeoutSeconds(3601).build()).hasMessageContaining("0..3600");
    assertThatThrownBy(() -> tool("t").timeoutSeconds(-1).build()).hasMessageContaining("0..3600");
  }

  @Test
  void aToolNeedsAHandler() {
    assertThatThrownBy(() -> PackTool.builder("t").build()).hasMessageContaining("needs a handler");
  }

  @Test
  void aPackNeedsAnIdAndUniquelyNamedTools() {
    PackClientBuilder ok = PackClient.builder(vertx).endpoints("127.0.0.1:1").token("t").packId("p").tool(tool("a").build());
    assertThat(ok.build().packId()).isEqualTo("p");

    assertThatThrownBy(() -> PackClient.builder(vertx).endpoints("127.0.0.1:1").token("t").tool(tool("a").build()).build())
      .hasMessageContaining("pack id is required");
    assertThatThrownBy(() -> PackClient.builder(vertx).endpoints("127.0.0.1:1").token("t").packId("p").build())
      .hasMessageContaining("at least one tool");
    assertThatThrownBy(() -> PackClient.builder(vertx).endpoints("127.0.0.1:1").token("t").packId("p")
      .tool(tool("a").build()).tool(tool("a").build()).build())
      .hasMessageContaining("offers tool a twice");
    assertThatThrownBy(() -> PackClient.builder(vertx).token("t").packId("p").tool(tool("a").build()).build())
      .hasMessageContaining("endpoint");
    assertThatThrownBy(() -> PackClient.builder(vertx).endpoints("127.0.0.1:1").packId("p").tool(tool("a").build()).build())
      .hasMessageContaining("token");
    assertThatThrownBy(() -> ok.maxConcurrentCalls(0).build()).hasMessageContaining("maxConcurrentCalls");
    assertThatThrownBy(() -> ok.maxConcurrentCalls(1).resultTimeout(Duration.ZERO).build()).hasMessageContaining("resultTimeout");
  }
}
