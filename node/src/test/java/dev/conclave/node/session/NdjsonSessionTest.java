package dev.conclave.node.session;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.db.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The NDJSON transport of {@code conclave session}: stdin lines become submissions, events come out
 * one per line; when its node stops, the client resumes on the next node without gap or duplicate.
 */
class NdjsonSessionTest {

  @Test
  void linesInEventsOutAndAResumeOnAnotherNodeWhenTheFirstStops() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    String secret = "ndjson-session-secret-0123456789abcdef012345";
    try (GatewayFixture second = GatewayFixture.start(TestNode.builder().database(db).env("CONCLAVE_AUTH_SECRET", secret))) {
      GatewayFixture first = GatewayFixture.start(TestNode.builder().database(db).env("CONCLAVE_AUTH_SECRET", secret));
      String admin = first.node().adminToken();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
      Vertx vertx = Vertx.vertx();
      try (RawAgent agent = second.connect("nd-agent", second.agentToken("nd-agent"))) {
        NdjsonSession session = new NdjsonSession(vertx, List.of(URI.create("http://127.0.0.1:" + first.node().httpPort()),
          URI.create("http://127.0.0.1:" + second.node().httpPort())), admin,
          new JsonObject().put("type", "configure_session").put("agent_id", "nd-agent"), out);
        assertThat(session.connect()).isTrue();
        session.submit("{\"id\":\"n1\",\"op\":{\"type\":\"user_input\",\"items\":[{\"type\":\"text\",\"text\":\"hi\"}]}}");
        String req = agent.next().getSendMessage().getRequestId();
        agent.respond(req, MessageResponse.newBuilder().setText("one "));
        waitFor(bytes, "one ");
        first.close();
        agent.respond(req, MessageResponse.newBuilder().setText("two"));
        agent.respond(req, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
        waitFor(bytes, "task_complete");
        session.finish(300);
      } finally {
        vertx.close();
      }
      List<JsonObject> lines = bytes.toString(StandardCharsets.UTF_8).lines().map(JsonObject::new).toList();
      List<String> types = lines.stream().map(l -> l.getJsonObject("msg").getString("type")).toList();
      assertThat(types).containsExactly("session_configured", "task_started", "user_message", "agent_message_delta", "session_configured",
        "agent_message_delta", "agent_message", "turn_complete", "task_complete");
      assertThat(lines.get(4).getJsonObject("msg").getString("session_id")).isEqualTo(lines.get(0).getJsonObject("msg").getString("session_id"));
      assertThat(lines.get(8).getString("id")).isEqualTo("n1");
      assertThat(lines.get(6).getJsonObject("msg").getString("message")).isEqualTo("one two");
    }
  }

  private static void waitFor(ByteArrayOutputStream bytes, String text) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 15_000;
    while (!bytes.toString(StandardCharsets.UTF_8).contains(text)) {
      if (System.currentTimeMillis() > deadline) {
        throw new AssertionError("no '" + text + "' in:\n" + bytes.toString(StandardCharsets.UTF_8));
      }
      Thread.sleep(20);
    }
  }
}
