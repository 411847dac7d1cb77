package dev.conclave.e2e.cli;

import dev.conclave.e2e.support.TestJvm;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.e2e.sessions.FlowAgentMain;
import dev.conclave.e2e.support.AgentProcess;
import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.FreePorts;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client commands (issue 46, docs/cli.md) as a user runs them: each its own process of the node
 * jar, against a real node process with the agent program's echo backend connected, plus three
 * scripted agents (one to pause, resume and tail, one that never finishes, to cancel with Ctrl-C, and
 * one that asks for an approval). Output
 * in table and JSON, exit codes, contexts and their file's mode, and the errors: a wrong token, an
 * unknown agent, no node.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ClientCliIT {

  private static final int IDLE_SECONDS = 8;

  private static Path root;
  private static NodeProcess node;
  private static Process echo;
  private static AgentProcess scripted;
  private static AgentProcess hanging;
  private static AgentProcess flow;
  private static Map<String, String> env;

  @BeforeAll
  static void start() throws Exception {
    root = Files.createTempDirectory("conclave-client-cli");
    Path data = root.resolve("data");
    // a short idle timeout: a send that waits longer than it without an event must keep its socket open
    node = NodeProcess.start(data, Map.of("CONCLAVE_NODE_ID", "cli-node", "CONCLAVE_HTTP_IDLE_SECONDS", Integer.toString(IDLE_SECONDS)));
    node.awaitReady(Duration.ofSeconds(120));
    // what a user of the local node has: its data dir and port; no context yet
    env = Map.of("CONCLAVE_DATA_DIR", data.toString(), "CONCLAVE_HTTP_PORT", Integer.toString(node.httpPort()),
      "XDG_CONFIG_HOME", root.resolve("config").toString());
    String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "cli-agents", "--ttl", "1h");
    echo = startEchoAgent(token);
    scripted = AgentProcess.start(node.grpcPort(), token, "life-1", "echo");
    hanging = AgentProcess.start(node.grpcPort(), token, "hang-1", "hang");
    flow = AgentProcess.startMain(FlowAgentMain.class, Integer.toString(node.grpcPort()), token, "flow-1");
    // three JVMs starting at once on a loaded machine: more than AgentProcess.await's 30 s may pass
    for (AgentProcess agent : List.of(scripted, hanging, flow)) {
      assertThat(agent.poll("registered", TimeUnit.SECONDS.toMillis(180))).as("an agent registered").isNotNull();
    }
  }

  private static Process startEchoAgent(String token) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(TestJvm.command("256m", "-jar", NodeProcess.jar().toString(), "agent", "--backend", "echo", "--agent-id",
      "echo-1", "--workdir", root.toString())).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    pb.environment().put("CONCLAVE_ENDPOINTS", "127.0.0.1:" + node.grpcPort());
    pb.environment().put("CONCLAVE_AGENT_TOKEN", token);
    Process p = pb.start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the agent exited
      }
    }, "echo-agent-output");
    reader.setDaemon(true);
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline) {
      String line = lines.poll(200, TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith("conclave-agent: registered agent=echo-1")) {
        return p;
      }
    }
    throw new AssertionError("the echo agent never registered");
  }

  @AfterAll
  static void stop() {
    if (echo != null) {
      echo.destroyForcibly();
    }
    if (scripted != null) {
      scripted.close();
    }
    if (hanging != null) {
      hanging.close();
    }
    if (flow != null) {
      flow.close();
    }
    if (node != null) {
      node.terminate(Duration.ofSeconds(30));
      node.close();
    }
    if (root != null) {
      TestDatabase.deleteTree(root);
    }
  }

  private static Map<String, String> env(String... more) {
    Map<String, String> e = new HashMap<>(env);
    for (int i = 0; i < more.length; i += 2) {
      e.put(more[i], more[i + 1]);
    }
    return e;
  }

  @Test
  void sendStreamsTheEchoAnswerAsTextAndExits0() {
    CliProcess.Result r = CliProcess.run(env, "send", "echo-1", "hello", "there");
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).isEqualTo("echo: hello there\n");
  }

  @Test
  void sendInJsonPrintsEverySessionEventOfItsTaskOnePerLine() {
    CliProcess.Result r = CliProcess.run(env, "send", "echo-1", "as json", "-o", "json");
    assertThat(r.exit()).as(r.err()).isZero();
    List<JsonObject> events = r.out().lines().map(JsonObject::new).toList();
    assertThat(events).extracting(e -> e.getJsonObject("msg").getString("type"))
      .startsWith("task_started", "user_message").contains("agent_message_delta").endsWith("task_complete");
    assertThat(events.get(events.size() - 1).getJsonObject("msg").getString("last_agent_message")).isEqualTo("echo: as json");
  }

  @Test
  void agentsInATableAndInTheApisJson() {
    CliProcess.Result table = CliProcess.run(env, "agents");
    assertThat(table.exit()).as(table.err()).isZero();
    List<String> lines = table.out().lines().toList();
    assertThat(lines.get(0)).matches("ID +NAME +STATE +NODE +LIFECYCLE +BACKEND");
    assertThat(lines).anyMatch(l -> l.matches("echo-1 +echo-1 +connected +cli-node +Running +echo"));

    CliProcess.Result json = CliProcess.run(env, "agents", "-o", "json");
    assertThat(json.exit()).isZero();
    JsonObject echo1 = new JsonObject(json.out()).getJsonArray("agents").stream().map(JsonObject.class::cast)
      .filter(a -> a.getString("agentId").equals("echo-1")).findFirst().orElseThrow();
    assertThat(echo1.getBoolean("connected")).isTrue();
    assertThat(echo1.getString("node")).isEqualTo("cli-node");
    assertThat(echo1.getString("lifecycle")).isEqualTo("Running");
    assertThat(echo1.getString("backend")).isEqualTo("echo");

    CliProcess.Result show = CliProcess.run(env, "agents", "show", "echo-1", "-o", "yaml");
    assertThat(show.exit()).isZero();
    assertThat(show.out()).contains("agentId: echo-1\n").contains("lifecycle: Running\n");
    CliProcess.Result missing = CliProcess.run(env, "agents", "show", "nobody");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.err()).isEqualTo("conclave agents show: agent_not_found: no agent nobody that you may act on\n");
  }

  @Test
  void historyShowsTheConversationInATableAndInJson() {
    assertThat(CliProcess.run(env, "send", "echo-1", "for the history").exit()).isZero();
    CliProcess.Result table = CliProcess.run(env, "history", "echo-1", "--limit", "500");
    assertThat(table.exit()).as(table.err()).isZero();
    assertThat(table.out().lines().findFirst().orElseThrow()).matches("SEQ +TIME +KIND +TEXT");
    assertThat(table.out()).containsPattern("(?m)^\\d+ +\\S+ +done +echo: for the history$");

    CliProcess.Result json = CliProcess.run(env, "history", "echo-1", "--limit", "500", "-o", "json");
    JsonArray events = new JsonObject(json.out()).getJsonArray("events");
    assertThat(events.stream().map(JsonObject.class::cast))
      .anySatisfy(e -> assertThat(e.getJsonObject("event").getJsonObject("done")).isNotNull());
    assertThat(events.getJsonObject(0).fieldNames()).containsExactly("seq", "event");
  }

  @Test
  void pauseAndResumeAnAgentAndAnIllegalTransitionIsExit1WithItsCode() {
    CliProcess.Result paused = CliProcess.run(env, "pause", "life-1", "--reason", "e2e");
    assertThat(paused.exit()).as(paused.err()).isZero();
    assertThat(paused.out().lines().toList()).containsExactly("AGENT   FROM     TO      EVENT", "life-1  Running  Paused  Paused");

    CliProcess.Result again = CliProcess.run(env, "pause", "life-1");
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.err()).startsWith("conclave pause: 409 lifecycle_transition_illegal: ").endsWith("\n").hasLineCount(1);

    CliProcess.Result resumed = CliProcess.run(env, "resume", "life-1", "-o", "json");
    assertThat(resumed.exit()).isZero();
    JsonObject transition = new JsonObject(resumed.out());
    assertThat(transition.getString("from")).isEqualTo("Paused");
    assertThat(transition.getString("to")).isEqualTo("Running");
    assertThat(transition.getString("event")).isEqualTo("Resumed");
    assertThat(CliProcess.run(env, "send", "life-1", "after the resume").out()).isEqualTo("echo: after the resume\n");
  }

  @Test
  void ctrlCCancelsTheRequestAndExits130() throws Exception {
    CliProcess send = CliProcess.start(env, "send", "hang-1", "never ends");
    send.awaitOut("working on it", 60);
    // longer than the node's idle timeout with no event: the send's pings keep the socket open
    Thread.sleep(TimeUnit.SECONDS.toMillis(IDLE_SECONDS + 4));
    send.interrupt();
    CliProcess.Result r = send.await(60);
    assertThat(r.exit()).as(r.out() + " / " + r.err()).isEqualTo(130);
    assertThat(r.err()).contains("cancelling the request");
    // the request is ended in the ledger: the conversation's last event says it was interrupted
    CliProcess.Result history = CliProcess.run(env, "history", "hang-1", "--limit", "1", "-o", "json");
    JsonObject last = new JsonObject(history.out()).getJsonArray("events").getJsonObject(0).getJsonObject("event");
    assertThat(last.encode()).contains("interrupted");
  }

  @Test
  void errorsAreOneLineWithTheServersCodeAndTheirExitCodes() throws Exception {
    Path bad = Files.writeString(root.resolve("bad.token"), "not-a-token\n");
    CliProcess.Result wrongToken = CliProcess.run(env, "agents", "--token-file", bad.toString());
    assertThat(wrongToken.exit()).isEqualTo(4);
    assertThat(wrongToken.err()).startsWith("conclave agents: 401 token_invalid").hasLineCount(1);
    CliProcess.Result wrongTokenSend = CliProcess.run(env, "send", "echo-1", "hi", "--token-file", bad.toString());
    assertThat(wrongTokenSend.exit()).isEqualTo(4);
    assertThat(wrongTokenSend.err()).startsWith("conclave send: 401 token_invalid").hasLineCount(1);

    CliProcess.Result unknown = CliProcess.run(env, "send", "no-such-agent", "hi");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).startsWith("conclave send: agent_not_found: ").hasLineCount(1);

    int nothing = FreePorts.next();
    CliProcess.Result noNode = CliProcess.run(env, "agents", "--url", "http://127.0.0.1:" + nothing);
    assertThat(noNode.exit()).isEqualTo(3);
    assertThat(noNode.err()).isEqualTo("conclave agents: cannot connect to http://127.0.0.1:" + nothing
      + ": connection refused (is a node running there?)\n");

    CliProcess.Result usage = CliProcess.run(env, "agents", "--no-such-flag");
    assertThat(usage.exit()).isEqualTo(2);
  }

  @Test
  void contextsAreKeptInAnOwnerOnlyFileAndFlagsAndTheEnvironmentOverrideThem() throws Exception {
    Path config = root.resolve("ctx-config");
    Path tokenFile = node.dataDir().resolve("admin.token");
    // no data dir, no port: only the context says where the node is and which token to send
    Map<String, String> bare = Map.of("XDG_CONFIG_HOME", config.toString());
    CliProcess.Result add = CliProcess.run(bare, "context", "add", "local", "--url", "http://127.0.0.1:" + node.httpPort(),
      "--token-file", tokenFile.toString());
    assertThat(add.exit()).as(add.err()).isZero();
    Path file = config.resolve("conclave/contexts.json");
    assertThat(add.out()).isEqualTo("context local saved in " + file + " (current)\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    assertThat(CliProcess.run(bare, "context", "add", "dead", "--url", "http://127.0.0.1:" + FreePorts.next(),
      "--token-file", tokenFile.toString()).exit()).isZero();

    CliProcess.Result list = CliProcess.run(bare, "context", "list", "-o", "json");
    JsonObject contexts = new JsonObject(list.out());
    assertThat(contexts.getString("current")).isEqualTo("local");
    assertThat(contexts.getJsonArray("contexts").stream().map(c -> ((JsonObject) c).getString("name"))).containsExactly("dead", "local");
    assertThat(CliProcess.run(bare, "context", "list").out().lines().toList().get(2)).startsWith("*        local");

    CliProcess.Result viaContext = CliProcess.run(bare, "send", "echo-1", "through a context");
    assertThat(viaContext.exit()).as(viaContext.err()).isZero();
    assertThat(viaContext.out()).isEqualTo("echo: through a context\n");

    assertThat(CliProcess.run(bare, "context", "use", "dead").exit()).isZero();
    assertThat(CliProcess.run(bare, "agents").exit()).as("the dead context is current").isEqualTo(3);
    assertThat(CliProcess.run(bare, "agents", "--context", "local").exit()).as("--context picks another").isZero();
    Map<String, String> withUrl = Map.of("XDG_CONFIG_HOME", config.toString(), "CONCLAVE_URL", "http://127.0.0.1:" + node.httpPort());
    assertThat(CliProcess.run(withUrl, "agents").exit()).as("CONCLAVE_URL overrides the context's URL").isZero();
    assertThat(CliProcess.run(bare, "agents", "--url", "http://127.0.0.1:" + node.httpPort()).exit()).as("--url too").isZero();

    CliProcess.Result unknownContext = CliProcess.run(bare, "context", "use", "nope");
    assertThat(unknownContext.exit()).isEqualTo(2);
    assertThat(unknownContext.err()).startsWith("conclave context use: no context named nope");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
  }

  @Test
  void sendShowsAnApprovalWaitingAndApproveLetsTheTaskFinish() throws Exception {
    CliProcess send = CliProcess.start(env, "send", "flow-1", "basic: fix the failing test");
    send.awaitOut("[approval needed exec-1]", 60);
    CliProcess.Result approve = CliProcess.run(env, "approve", "exec-1", "--agent", "flow-1");
    assertThat(approve.exit()).as(approve.err()).isZero();
    assertThat(approve.out().lines().toList()).containsExactly("CALL    DECISION", "exec-1  approved");
    CliProcess.Result r = send.await(60);
    assertThat(r.exit()).as(r.err()).isZero();
    assertThat(r.out()).contains("[approval needed exec-1] shell").contains("[tool shell exec-1]").contains("[tool exec-1 done]");

    CliProcess.Result again = CliProcess.run(env, "deny", "exec-1", "--agent", "flow-1");
    assertThat(again.exit()).as("decided once: a second decision is refused").isEqualTo(1);
    assertThat(again.err()).startsWith("conclave deny: not accepted: ").hasLineCount(1);
  }

  @Test
  void tailReplaysFromSinceThenFollowsLiveUntilCtrlCWhichEndsIt0() throws Exception {
    assertThat(CliProcess.run(env, "send", "life-1", "before the tail").exit()).isZero();
    CliProcess tail = CliProcess.start(env, "tail", "life-1", "--since", "0");
    tail.awaitOut("echo: before the tail", 60);
    assertThat(CliProcess.run(env, "send", "life-1", "while tailing").exit()).isZero();
    tail.awaitOut("> while tailing", 60);
    tail.awaitOut("echo: while tailing", 60);
    tail.interrupt();
    CliProcess.Result r = tail.await(60);
    assertThat(r.exit()).as("Ctrl-C is how a follower ends").isZero();
    assertThat(r.out()).contains("> before the tail\necho: before the tail\n");

    CliProcess json = CliProcess.start(env, "tail", "life-1", "--since", "0", "-o", "json");
    json.awaitOut("\"last_agent_message\":\"echo: while tailing\"", 60);
    json.interrupt();
    CliProcess.Result jr = json.await(60);
    assertThat(jr.exit()).isZero();
    assertThat(jr.out().lines().map(JsonObject::new).toList()).isNotEmpty()
      .allSatisfy(f -> assertThat(f.getJsonObject("msg").getString("type")).isNotBlank());
  }

  @Test
  void completionPrintsAScriptThatKnowsTheCommands() {
    CliProcess.Result bash = CliProcess.run(env, "completion", "bash");
    assertThat(bash.exit()).isZero();
    assertThat(bash.out()).contains("complete -F").contains("conclave").contains("send").contains("history").contains("--token-file");
    CliProcess.Result help = CliProcess.run(env, "send", "--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).contains("Example:").contains("conclave send echo-1 \"hello\"");
  }
}
