package dev.conclave.packs.sdk;

import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.pack.PackRegistration;
import dev.conclave.agent.pack.PackTool;
import dev.conclave.agent.pack.PackToolException;
import dev.conclave.packs.support.PackHost;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The Java pack SDK against the real pack host: register, serve calls, report rejected names, stop. */
class PackSdkAgainstPackHostTest {

  private static PackHost host;

  @BeforeAll
  static void start() {
    host = PackHost.start();
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @Test
  void aPackWrittenWithTheSdkServesAgents() throws Exception {
    PackTool shout = PackTool.builder("shout").description("Upper-cases text")
      .inputSchema(new JsonObject().put("type", "object").put("properties", new JsonObject().put("text", new JsonObject().put("type", "string"))))
      .handler(call -> {
        String text = call.input().getString("text", "");
        return text.isEmpty() ? Future.failedFuture(new PackToolException("nothing to shout"))
          : Future.succeededFuture(new JsonObject().put("shout", text.toUpperCase()).encode());
      })
      .build();
    PackTool clash = PackTool.builder("note_get").description("would shadow a built-in").handler(call -> Future.succeededFuture("{}")).build();
    PackClient pack = PackClient.builder(host.gw().vertx())
      .endpoints("127.0.0.1:" + host.gw().node().grpcPort())
      .token(host.packToken("sdk-pack"))
      .packId("sdk-pack")
      .version("2.0.0")
      .tool(shout)
      .tool(clash)
      .build();
    try {
      PackRegistration registration = pack.start().await(15, TimeUnit.SECONDS);
      assertThat(registration.rejectedTools()).containsExactly("note_get");
      assertThat(registration.liveTools()).containsExactly("shout");
      try (PackHost.ToolAgent agent = host.agent("sdk-user", "chat")) {
        assertThat(agent.toolNames()).contains("shout");
        assertThat(agent.run("s1", "shout", "{\"text\":\"hello\"}").getOutputJson()).isEqualTo("{\"shout\":\"HELLO\"}");
        assertThat(agent.run("s2", "shout", "{}").getError()).isEqualTo("nothing to shout");
      }
    } finally {
      pack.close().await(10, TimeUnit.SECONDS);
    }
    try (PackHost.ToolAgent later = host.agent("sdk-later", "chat")) {
      assertThat(later.toolNames()).doesNotContain("shout");
    }
  }
}
