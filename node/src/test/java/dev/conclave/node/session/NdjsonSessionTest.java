package dev.conclave.node.session;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.FreePorts;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The NDJSON transport of {@code conclave session}: stdin lines become submissions, events come out
 * one per line; when its node stops, the client resumes on the next node without gap or duplicate.
 */
class NdjsonSessionTest {

  private static final String SECRET = "ndjson-session-secret-0123456789abcdef012345";

  @Test
  void linesInEventsOutAndAResumeOnAnotherNodeWhenTheFirstStops() throws Exception {
    PgUrl db = TestDatabase.freshDatabase();
    int hzFirst = FreePorts.next();
    int hzSecond = FreePorts.next();
    String members = "127.0.0.1:" + hzFirst + ",127.0.0.1:" + hzSecond;
    // one Hazelcast cluster: the node the session is on wakes the agent's node at once
    CompletableFuture<GatewayFixture> starting = CompletableFuture.supplyAsync(() -> GatewayFixture.start(clustered(db, members, hzFirst)));
    try (GatewayFixture second = GatewayFixture.start(clustered(db, members, hzSecond)); GatewayFixture first = starting.join()) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
      AtomicBoolean gaveUp = new AtomicBoolean();
      Vertx vertx = Vertx.vertx();
      NdjsonSession session = new NdjsonSession(vertx, List.of(URI.create("http://127.0.0.1:" + first.node().httpPort()),
        URI.create("http://127.0.0.1:" + second.node().httpPort())), first.node().adminToken(),
        new JsonObject().put("type", "configure_session").put("agent_id", "nd-agent"), out, () -> gaveUp.set(true));
      try (RawAgent agent = second.connect("nd-agent", second.agentToken("nd-agent"))) {
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
        session.close();
        vertx.close();
      }
      assertThat(gaveUp).isFalse();
      List<JsonObject> lines = bytes.toString(StandardCharsets.UTF_8).lines().map(JsonObject::new).toList();
      List<String> types = lines.stream().map(l -> l.getJsonObject("msg").getString("type")).toList();
      assertThat(types).containsExactly("session_configured", "task_started", "user_message", "agent_message_delta", "session_configured",
        "agent_message_delta", "agent_message", "turn_complete", "task_complete");
      assertThat(lines.get(4).getJsonObject("msg").getString("session_id")).isEqualTo(lines.get(0).getJsonObject("msg").getString("session_id"));
      assertThat(lines.get(8).getString("id")).isEqualTo("n1");
      assertThat(lines.get(6).getJsonObject("msg").getString("message")).isEqualTo("one two");
    }
  }

  /**
   * After stdin ends the client waits for the tasks its submissions started, however long the agent
   * takes, before the linger: a script that pipes one message in gets the whole answer out, also on
   * a machine too busy to answer within the linger.
   */
  @Test
  void afterStdinEndsItWaitsForTheTasksItStartedThenLingers() throws Exception {
    try (GatewayFixture gateway = GatewayFixture.start()) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
      Vertx vertx = Vertx.vertx();
      NdjsonSession session = new NdjsonSession(vertx, List.of(URI.create("http://127.0.0.1:" + gateway.node().httpPort())),
        gateway.node().adminToken(), new JsonObject().put("type", "configure_session").put("agent_id", "slow-agent"), out, () -> { });
      try (RawAgent agent = gateway.connect("slow-agent", gateway.agentToken("slow-agent"))) {
        assertThat(session.connect()).isTrue();
        assertThat(session.awaitConfigured(15_000).getString("type")).isEqualTo("session_configured");
        session.submit("{\"id\":\"w1\",\"op\":{\"type\":\"user_input\",\"items\":[{\"type\":\"text\",\"text\":\"hi\"}]}}");
        String req = agent.next().getSendMessage().getRequestId();
        CompletableFuture<Void> finished = CompletableFuture.runAsync(() -> session.finish(200));
        // the agent answers well after the 200 ms linger: the client must still be there to print it
        Thread.sleep(1_500);
        assertThat(finished).as("finish() before the task ended").isNotDone();
        agent.respond(req, MessageResponse.newBuilder().setText("late"));
        agent.respond(req, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
        finished.get(30, java.util.concurrent.TimeUnit.SECONDS);
      } finally {
        session.close();
        vertx.close();
      }
      List<String> types = bytes.toString(StandardCharsets.UTF_8).lines().map(JsonObject::new)
        .map(l -> l.getJsonObject("msg").getString("type")).toList();
      assertThat(types).endsWith("agent_message", "turn_complete", "task_complete");
    }
  }

  @Test
  void aRefusedConfigureExitsWithFourAndSaysWhy() throws Exception {
    try (GatewayFixture gateway = GatewayFixture.start()) {
      java.nio.file.Path tokenFile = java.nio.file.Files.createTempFile("session", ".token");
      java.nio.file.Files.writeString(tokenFile, gateway.node().adminToken());
      Run run = run("--agent", "no-such-agent", "--url", "http://127.0.0.1:" + gateway.node().httpPort(), "--token-file", tokenFile.toString());
      assertThat(run.code()).isEqualTo(SessionCommand.EXIT_CONFIGURE_FAILED);
      assertThat(run.err()).contains("configure_session failed: ");
    }
  }

  @Test
  void noNodeExitsWithThreeAfterOneLinePerNode() throws Exception {
    java.nio.file.Path tokenFile = java.nio.file.Files.createTempFile("session", ".token");
    java.nio.file.Files.writeString(tokenFile, "not-used");
    Run run = run("--agent", "a", "--url", "http://127.0.0.1:" + FreePorts.next(), "--token-file", tokenFile.toString());
    assertThat(run.code()).isEqualTo(SessionCommand.EXIT_NO_NODE);
    assertThat(run.err().lines().filter(l -> l.contains("cannot reach")).count()).isEqualTo(1);
    assertThat(run.err()).contains("no node answered");
  }

  private record Run(int code, String err) {
  }

  /** Runs the command in this JVM, with stderr captured. */
  private static synchronized Run run(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    java.io.InputStream oldIn = System.in;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    System.setIn(new java.io.ByteArrayInputStream(new byte[0])); // no submissions: stdin ends at once
    try {
      int code = new picocli.CommandLine(new SessionCommand()).execute(args);
      return new Run(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(old);
      System.setIn(oldIn);
    }
  }

  private static TestNode.Builder clustered(PgUrl db, String members, int hazelcastPort) {
    return TestNode.builder().database(db)
      .env("CONCLAVE_AUTH_SECRET", SECRET)
      .env("CONCLAVE_CLUSTER_MEMBERS", members)
      .env("CONCLAVE_CLUSTER_HOST", "127.0.0.1")
      .env("CONCLAVE_CLUSTER_PORT", Integer.toString(hazelcastPort))
      .env("CONCLAVE_EVENTBUS_PORT", Integer.toString(FreePorts.next()));
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
