package dev.conclave.e2e.interop;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Agents multiplexed on one HTTP/2 connection by a real third-party client, the one Coven agents
 * use: Node.js {@code @grpc/grpc-js} ({@code e2e/interop/shared-channel.js}, one client, so one
 * channel and one connection). In each round five agents open their AgentStreams on it and
 * register; one cancels its call, and the other four must each still answer a message a Java
 * client sends (SendMessage, then the answer read with StreamEvents).
 *
 * <p>grpc-js's {@code call.cancel()} is not a bare RST_STREAM: Node half-closes the stream first
 * (END_STREAM), then resets it. The gateway ends its side when it reads the END_STREAM, and Vert.x
 * 5.0.7 queues the trailers of that end behind the response's last DATA frame with a void promise;
 * when the RST_STREAM is read in the same read as the END_STREAM, Netty fails that queued write as
 * the stream closes, the void promise hands the stream error to the pipeline, and Vert.x's
 * exception handler closes the whole connection: about one cancel in two took every agent on the
 * connection down (the gRPC port's {@code Http2StreamErrors}, in the platform module, now keeps such a failure on its stream).
 *
 * <p>The cancel comes at different moments, a mode per round in turn: idle; right after the agent
 * sent a response event, or its whole answer; right after a half-close of its own; a raw stream on
 * the same connection that half-closes, then sends RST_STREAM(NO_ERROR), as grpc-go does; on the
 * first message of a burst of injections the gateway is writing to it; while the gateway ends it
 * (the same agent registers again, the old stream is told Shutdown and ended); and after it stopped
 * reading, its window filled by injections, and the gateway ended it behind them.
 *
 * <p>After every round: one HTTP/2 session in the Node process's whole life, never a GOAWAY or a
 * close of it, the channel never left READY, no stream of a surviving agent failed, and the node
 * logged no ERROR (Netty logs the exceptions its stream listeners throw at ERROR, then swallows
 * them). At the end the node's audit log shows every registration came from the one remote port.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class SharedChannelCancelIT {

  private static final int AGENTS = 5;
  private static final int ROUNDS = Integer.getInteger("sharedChannel.rounds", 50);
  private static final List<String> MODES = List.of("idle", "after-response", "after-done", "halfclose-rst", "raw-noerror",
    "burst", "ending", "paused-ending");
  private static final Duration STEP = Duration.ofSeconds(10);

  private static Path root;
  private static NodeProcess node;
  private static AdminClient admin;
  private static NodeAgentProcess shared;

  @BeforeAll
  static void start() throws Exception {
    String nodeVersion = NodeAgentProcess.checkPrerequisites();
    System.out.println("shared-channel: Node.js " + nodeVersion);
    root = Files.createTempDirectory("conclave-shared-channel");
    Path data = root.resolve("data");
    node = NodeProcess.start(data, Map.of("CONCLAVE_NODE_ID", "shared-channel-node"));
    node.awaitReady(Duration.ofSeconds(90));
    admin = new AdminClient(node.grpcPort(), node.httpPort(), Files.readString(data.resolve("admin.token")).trim());
    String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "shared-channel", "--ttl", "1h");
    shared = NodeAgentProcess.launch(List.of("node", NodeAgentProcess.interopDir().resolve("shared-channel.js").toString(),
      "--address", "127.0.0.1:" + node.grpcPort(), "--proto", NodeAgentProcess.covenProto().toString()),
      Map.of("COVEN_AGENT_TOKEN", token));
    shared.await("ready", Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (shared != null) {
        shared.close();
      }
      if (admin != null) {
        admin.close();
      }
    } finally {
      try {
        if (node != null && node.alive()) {
          node.terminate(Duration.ofSeconds(30));
        }
      } finally {
        if (node != null) {
          node.close();
        }
        if (root != null) {
          TestDatabase.deleteTree(root);
        }
      }
    }
  }

  @Test
  void oneAgentCancellingItsCallLeavesTheOthersOnTheSharedConnectionWorking() {
    long started = System.nanoTime();
    for (int round = 1; round <= ROUNDS; round++) {
      String mode = MODES.get((round - 1) % MODES.size());
      playRound(round, mode, round % AGENTS);
    }
    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    List<NodeAgentProcess.Line> sessions = shared.lines("h2-connect");
    assertThat(sessions).as("HTTP/2 sessions the Node process opened").hasSize(1);
    String remote = "127.0.0.1:" + sessions.get(0).field("local_port");
    Set<String> remotes = registrationRemotes(ROUNDS * AGENTS);
    assertThat(remotes).as("where the node saw the %d registrations come from", ROUNDS * AGENTS).containsExactly(remote);
    System.out.printf("shared-channel: %d rounds, %d agents each, one connection (%s), in %d ms%n", ROUNDS, AGENTS, remote, took);
  }

  private static void playRound(int round, String mode, int victim) {
    String what = "round " + round + " (cancel " + mode + ", slot " + victim + ")";
    // the victim of these modes is a stream written with Node's http2 API on the channel's connection
    boolean raw = mode.equals("raw-noerror") || mode.equals("paused-ending");
    shared.tell("open " + round + " " + AGENTS + (raw ? " " + victim : ""));
    for (int i = 0; i < AGENTS; i++) {
      int slot = i;
      await(what, "welcome", l -> of(l, round, slot), "slot " + slot + " registered");
    }
    String victimId = agentId(round, victim);
    boolean idReused = false;
    switch (mode) {
      case "after-response", "after-done" -> {
        String held = admin.send(victimId, "hold");
        await(what, "holding", l -> of(l, round, victim) && l.field("request").equals(held), "the victim holds a request");
        shared.tell("cancel " + round + " " + victim + " " + mode);
      }
      case "burst" -> {
        arm(what, round, victim, mode);
        List<Future<HttpResponse<Buffer>>> sent = injectBurst(victimId, 20, 8 * 1024);
        await(what, "cancel", l -> of(l, round, victim), "the victim cancelled");
        settle(sent);
      }
      case "ending" -> {
        arm(what, round, victim, mode);
        shared.tell("supersede " + round + " " + victim);
        await(what, "cancel", l -> of(l, round, victim), "the victim cancelled on its Shutdown");
        idReused = true;
      }
      case "paused-ending" -> {
        arm(what, round, victim, mode);
        // more than the stream window the client gives: the gateway's writes to it back up
        settle(injectBurst(victimId, 12, 16 * 1024));
        shared.tell("supersede " + round + " " + victim);
        awaitCondition(what, () -> shared.lines("welcome").stream().filter(l -> of(l, round, victim)).count() == 2,
          "the same agent registered again");
        shared.tell("release " + round + " " + victim);
        await(what, "cancel", l -> of(l, round, victim), "the victim cancelled");
        idReused = true;
      }
      default -> shared.tell("cancel " + round + " " + victim + " " + mode);
    }
    await(what, "cancel", l -> of(l, round, victim), "the victim cancelled");
    if (!idReused) {
      // the gateway has seen the cancel once the victim's session is gone
      admin.awaitConnected(victimId, false);
    }
    checkConnection(what, round, victim);

    for (int i = 0; i < AGENTS; i++) {
      if (i != victim) {
        roundTrip(what, round, i);
      }
    }
    checkConnection(what, round, victim);
    shared.tell("finish " + round);
    await(what, "finished", l -> l.field("round").equals(Integer.toString(round)), "the round's streams half-closed");
  }

  /** A survivor answers a message; the Java client sees the answer. */
  private static void roundTrip(String what, int round, int slot) {
    String agentId = agentId(round, slot);
    String request = admin.send(agentId, "ping " + round);
    await(what, "answered", l -> of(l, round, slot) && l.field("request").equals(request), agentId + " answered");
    try (RequestFeed feed = admin.feed(agentId, request)) {
      List<ClientStreamEvent> events = feed.untilTerminal();
      ClientStreamEvent terminal = events.get(events.size() - 1);
      assertThat(terminal.hasDone()).as("%s: %s's answer ended with done: %s", what, agentId, events).isTrue();
      assertThat(terminal.getDone().getFullResponse()).as("%s: %s's answer", what, agentId).isEqualTo("pong " + round);
    }
  }

  /** The one connection is up and READY, no survivor's stream failed, and the node logged no ERROR. */
  private static void checkConnection(String what, int round, int victim) {
    List<String> broken = new ArrayList<>();
    broken.addAll(texts("h2-goaway"));
    broken.addAll(texts("h2-close"));
    broken.addAll(texts("h2-error"));
    if (shared.lines("h2-connect").size() != 1) {
      broken.addAll(texts("h2-connect"));
    }
    shared.lines("channel-state").stream().filter(l -> !l.field("state").equals("READY") && !l.field("state").equals("CONNECTING"))
      .forEach(l -> broken.add(l.text()));
    for (String event : List.of("stream-error", "stream-end")) {
      shared.lines(event).stream().filter(l -> l.field("round").equals(Integer.toString(round)) && !l.field("slot").equals(Integer.toString(victim)))
        .forEach(l -> broken.add(l.text()));
    }
    assertThat(broken).as("%s: what the Node client saw of its connection and the survivors' streams", what).isEmpty();
    assertThat(nodeErrors()).as("%s: ERRORs in the node's log", what).isEmpty();
  }

  private static List<String> nodeErrors() {
    return node.logText().lines()
      .filter(l -> l.contains(" ERROR ") || l.contains("NullPointerException") || l.contains("Caught Throwable"))
      .toList();
  }

  private static List<String> texts(String event) {
    return shared.lines(event).stream().map(NodeAgentProcess.Line::text).toList();
  }

  private static void arm(String what, int round, int victim, String mode) {
    shared.tell("cancel " + round + " " + victim + " " + mode);
    await(what, "armed", l -> of(l, round, victim), "the victim armed its cancel");
  }

  /** Injections sent to the agent at once, not waited for. */
  private static List<Future<HttpResponse<Buffer>>> injectBurst(String agentId, int count, int bytes) {
    List<Future<HttpResponse<Buffer>>> sent = new ArrayList<>();
    for (int k = 0; k < count; k++) {
      sent.add(admin.postAsync("/api/v1/gateway/agents/" + agentId + "/inject", new JsonObject()
        .put("content", ("burst " + k + " ").repeat(bytes / 8)).put("priority", "immediate").put("source", "shared-channel")));
    }
    return sent;
  }

  /** Waits for the answers of a burst, whatever they are: some reach a stream already gone. */
  private static void settle(List<Future<HttpResponse<Buffer>>> sent) {
    try {
      Future.join(sent).otherwiseEmpty().await(STEP.toSeconds(), TimeUnit.SECONDS); // answered, whatever the answers
    } catch (Exception e) {
      throw new AssertionError("the injections were not answered within " + STEP.toSeconds() + " s", e);
    }
  }

  /** The remote address of every registration of this test's agents in the node's audit log. */
  private static Set<String> registrationRemotes(int expected) {
    long deadline = System.nanoTime() + STEP.toNanos();
    while (true) {
      Set<String> remotes = new HashSet<>();
      int found = 0;
      String cursor = null;
      do {
        JsonObject page = admin.get("/api/v1/audit?action=agent.register&target=agent_id%3Dsc-&limit=500"
          + (cursor == null ? "" : "&cursor=" + cursor)).bodyAsJsonObject();
        JsonArray entries = page.getJsonArray("entries");
        for (int i = 0; i < entries.size(); i++) {
          remotes.add(entries.getJsonObject(i).getString("remote"));
          found++;
        }
        cursor = page.getString("nextCursor");
      } while (cursor != null);
      // the superseding registrations of the ending rounds come on top
      if (found >= expected || System.nanoTime() > deadline) {
        assertThat(found).as("registrations in the audit log").isGreaterThanOrEqualTo(expected);
        return remotes;
      }
      sleep(100);
    }
  }

  private static NodeAgentProcess.Line await(String what, String event, Predicate<NodeAgentProcess.Line> matching, String waitingFor) {
    try {
      return shared.await(event, matching, STEP);
    } catch (AssertionError e) {
      throw new AssertionError(what + ": " + waitingFor + " ('" + event + "') did not happen. Connection events: "
        + connectionEvents() + "; node ERRORs: " + nodeErrors(), e);
    }
  }

  private static void awaitCondition(String what, java.util.function.BooleanSupplier condition, String waitingFor) {
    long deadline = System.nanoTime() + STEP.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + ": " + waitingFor + " did not happen within " + STEP.toSeconds() + " s. Connection events: "
          + connectionEvents() + "; node ERRORs: " + nodeErrors() + "; Node output:\n" + shared.output());
      }
      sleep(20);
    }
  }

  private static String connectionEvents() {
    return List.of("h2-connect", "h2-goaway", "h2-close", "h2-error", "channel-state").stream()
      .flatMap(e -> shared.lines(e).stream()).map(NodeAgentProcess.Line::text).collect(Collectors.joining("; ", "[", "]"));
  }

  private static boolean of(NodeAgentProcess.Line line, int round, int slot) {
    return Integer.toString(round).equals(line.fields().get("round")) && Integer.toString(slot).equals(line.fields().get("slot"));
  }

  private static String agentId(int round, int slot) {
    return "sc-" + round + "-" + slot;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
