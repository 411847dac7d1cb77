package dev.conclave.agentruntime.backend.claude;

import dev.conclave.agent.ApprovalDecision;
import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.InjectionQueue;
import dev.conclave.agentruntime.backend.PackTools;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.cli.PermissionBridge;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.agentruntime.gate.ToolPolicy;
import dev.conclave.agentruntime.testing.Eventually;
import dev.conclave.agentruntime.testing.FakeCli;
import dev.conclave.agentruntime.testing.RecordingResponse;
import dev.conclave.agentruntime.testing.TestContexts;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The claude-cli backend against a fake {@code claude} printing Claude Code's stream-json. */
class ClaudeCliBackendTest {

  private final Vertx vertx = Vertx.vertx();
  @TempDir
  Path dir;
  private Path workdir;
  private Path exe;

  @BeforeEach
  void install() throws Exception {
    exe = FakeCli.install("claude", dir);
    workdir = Files.createDirectories(dir.resolve("work"));
  }

  @AfterEach
  void close() {
    vertx.close().await();
  }

  private BackendHandler handler(ToolPolicy policy, Duration retryDelay) {
    BackendContext context = TestContexts.context(vertx, workdir, policy, PackTools.none(), new InjectionQueue(4), Duration.ofSeconds(5));
    return new BackendHandler(vertx, new ClaudeCliBackend(context, new CliSettings(exe.toString(), Optional.empty())), retryDelay, 64);
  }

  private static String await(RecordingResponse r) {
    return Eventually.result(r.terminal());
  }

  @Test
  void mapsThinkingToolsTextUsageAndTheSessionAndResumesIt() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults(), Duration.ofMillis(50));
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "list the files"), r);
    assertThat(await(r)).isEqualTo("done:Two entries: README.md and src/.");
    assertThat(r.events).containsExactly("thinking:The user wants the files listed.", "tool_use:toolu_01:LS",
      "tool_state:toolu_01:RUNNING", "tool_result:toolu_01:- README.md\n- src/\n", "tool_state:toolu_01:COMPLETED",
      "text:Two entries: README.md and src/.", "usage:40/32", "session_init:0f5b7e2c-1a3d-4c8e-9b6f-2d4e6a8c0b1d",
      "done:Two entries: README.md and src/.");
    String args = FakeCli.invocations(workdir, "claude").get(0);
    assertThat(args).startsWith("-p list the files --output-format stream-json --verbose").doesNotContain("--resume")
      .contains("--permission-mode default", "--permission-prompt-tool mcp__conclave__approve", "--mcp-config ")
      .doesNotContain("--allowedTools", "--dangerously-skip-permissions");

    RecordingResponse next = new RecordingResponse();
    h.handle(RecordingResponse.message("req-2", "th-1", "and again"), next);
    await(next);
    assertThat(FakeCli.invocations(workdir, "claude").get(1)).contains("--resume 0f5b7e2c-1a3d-4c8e-9b6f-2d4e6a8c0b1d");
    assertThat(next.events).as("same session: no new session_init").noneMatch(e -> e.startsWith("session_init"));
  }

  @Test
  void theRunGetsTheRequestsTraceContextInItsEnvironment() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults(), Duration.ofMillis(50));
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "list the files",
      dev.conclave.agent.TraceContext.of(java.util.Map.of("traceparent", traceparent, "tracestate", "k=v"))), r);
    await(r);
    RecordingResponse untraced = new RecordingResponse();
    h.handle(RecordingResponse.message("req-2", "th-2", "list the files"), untraced);
    await(untraced);
    assertThat(FakeCli.traceEnvironment(workdir, "claude"))
      .containsExactly("TRACEPARENT=" + traceparent + " TRACESTATE=k=v", "TRACEPARENT= TRACESTATE=");
  }

  @Test
  void aStaleSessionIsRetriedOnceWithoutResume() throws Exception {
    for (String stale : List.of("stale-session", "gone-session")) {
      RecordingResponse r = new RecordingResponse();
      BackendHandler h = handler(ToolPolicy.defaults(), Duration.ofMillis(50));
      // an earlier message on the thread created the session that is now stale
      RecordingResponse earlier = new RecordingResponse();
      h.handle(RecordingResponse.message("req-0" + stale, "th-" + stale, "session=" + stale + " hello"), earlier);
      assertThat(await(earlier)).startsWith("done:");
      assertThat(h.sessionOf("th-" + stale)).contains(stale);
      h.handle(RecordingResponse.message("req-" + stale, "th-" + stale, "hello"), r);
      assertThat(await(r)).isEqualTo("done:Two entries: README.md and src/.");
      assertThat(r.events).contains("session_orphaned");
    }
    List<String> runs = FakeCli.invocations(workdir, "claude");
    assertThat(runs.stream().filter(a -> a.contains("--resume stale-session"))).hasSize(1);
    assertThat(runs.stream().filter(a -> a.contains("--resume gone-session"))).hasSize(1);
  }

  @Test
  void an529IsRetriedOnceAfterTwoSeconds() throws Exception {
    BackendHandler h = new BackendHandler(vertx, new ClaudeCliBackend(
      TestContexts.context(vertx, workdir, ToolPolicy.defaults(), PackTools.none(), new InjectionQueue(4), Duration.ofSeconds(5)),
      new CliSettings(exe.toString(), Optional.empty())));   // the default handler: 2 s before the retry
    RecordingResponse r = new RecordingResponse();
    long start = System.nanoTime();
    h.handle(RecordingResponse.message("req-1", "th-1", "overloaded-once"), r);
    assertThat(await(r)).isEqualTo("done:Two entries: README.md and src/.");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(FakeCli.invocations(workdir, "claude")).hasSize(2);
  }

  @Test
  void aPersistentOverloadEndsWithTheFriendlyMessageAfterTwoRuns() throws Exception {
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults(), Duration.ofMillis(50)).handle(RecordingResponse.message("req-1", "th-1", "overloaded"), r);
    assertThat(await(r)).isEqualTo("error:" + BackendHandler.FRIENDLY_UNAVAILABLE);
    assertThat(FakeCli.invocations(workdir, "claude")).hasSize(2);
  }

  @Test
  void aNonRetryableErrorIsReturnedAtOnce() throws Exception {
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults(), Duration.ofMillis(50)).handle(RecordingResponse.message("req-1", "th-1", "auth"), r);
    assertThat(await(r)).isEqualTo("error:Claude Code failed: Invalid API key · Fix external API key");
    assertThat(FakeCli.invocations(workdir, "claude")).hasSize(1);
  }

  /**
   * The cancel signals the process group at once (SIGTERM; SIGKILL after the 1.5 s grace, which
   * ChildProcessTest shows): the fake, which would run for 10 minutes, records that SIGTERM ended
   * it. How long that takes is not measured, since a loaded machine can take any time.
   */
  @Test
  void aCancelKillsTheRunningClaude() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults(), Duration.ofMillis(50));
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "slow"), r);
    Eventually.until("claude is working", () -> r.events.contains("text:working on it"));
    r.cancel("user_requested");
    h.onCancel("req-1", "user_requested");
    assertThat(await(r)).isEqualTo("cancelled:user_requested");
    // SIGTERM ended it (not SIGKILL, not its own end); the cancel and the request's end may both signal the
    // group before it is gone, and a loaded machine lets its trap run for each
    assertThat(FakeCli.signals(workdir, "claude")).isNotEmpty().containsOnly("slow: SIGTERM");
    assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(exe.toString())))
      .as("no fake claude left running").isEmpty();
  }

  @Test
  void planModeAsksClaudeForItsPlanModeAndAppendsTheInstruction() throws Exception {
    BackendContext context = new BackendContext(vertx, workdir,
      new dev.conclave.agentruntime.gate.ToolGate(vertx, ToolPolicy.defaults().withMode(GateMode.PLAN), workdir, Duration.ofSeconds(5)),
      dev.conclave.agentruntime.gate.PlanMode.systemPrompt("", GateMode.PLAN), PackTools.none(), new InjectionQueue(4), Duration.ofSeconds(1));
    RecordingResponse r = new RecordingResponse();
    new BackendHandler(vertx, new ClaudeCliBackend(context, new CliSettings(exe.toString(), Optional.of("opus"))))
      .handle(RecordingResponse.message("req-1", "th-1", "plan it"), r);
    await(r);
    String args = FakeCli.invocations(workdir, "claude").get(0);
    assertThat(args).contains("--permission-mode plan", "--model opus", "--append-system-prompt You are in plan mode.");
  }

  // --- the permission bridge: Claude Code asks the gate before each tool it does not allow itself ---

  private BackendHandler gated(ToolPolicy policy, Duration approvalTimeout) {
    BackendContext context = TestContexts.context(vertx, workdir, policy, PackTools.none(), new InjectionQueue(4), approvalTimeout);
    return new BackendHandler(vertx, new ClaudeCliBackend(context, new CliSettings(exe.toString(), Optional.empty())),
      Duration.ofMillis(50), 64);
  }

  private static RecordingResponse answering(boolean approved, boolean all) {
    return new RecordingResponse(id -> Future.succeededFuture(new ApprovalDecision(id, approved, all, false)));
  }

  @Test
  void aToolThePolicyAllowsRunsAfterTheGateSaidSo() throws Exception {
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults().withMode(GateMode.AUTO), Duration.ofSeconds(5))
      .handle(RecordingResponse.message("req-1", "th-1", "write notes"), r);
    assertThat(await(r)).isEqualTo("done:Done.");
    Path notes = workdir.resolve("notes.txt");
    assertThat(notes).hasContent("hello");
    assertThat(r.events).containsExactly("tool_use:toolu_write:Write", "tool_state:toolu_write:RUNNING",
      "tool_result:toolu_write:File created successfully at: notes.txt", "tool_state:toolu_write:COMPLETED", "text:Done.",
      "usage:40/32", "session_init:0f5b7e2c-1a3d-4c8e-9b6f-2d4e6a8c0b1d", "done:Done.");
    assertThat(Files.readString(workdir.resolve("claude-permissions.log"))).contains("Write {\"behavior\":\"allow\"");
  }

  @Test
  void aToolThePolicyDeniesNeverRunsAndTheModelIsToldWhy() throws Exception {
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults().withMode(GateMode.AUTO), Duration.ofSeconds(5))
      .handle(RecordingResponse.message("req-1", "th-1", "clean with rm"), r);
    assertThat(await(r)).isEqualTo("done:I was not allowed to run Bash.");
    assertThat(workdir.resolve("bash-ran.log")).as("the command never ran").doesNotExist();
    assertThat(r.events.subList(0, 3)).containsExactly("tool_use:toolu_rm:Bash", "tool_state:toolu_rm:DENIED",
      "tool_result:toolu_rm:error:denied by policy: a recursive forced delete (rm -rf)");
    assertThat(r.startingWith("tool_")).as("reported once, not again from permission_denials").hasSize(3);
    assertThat(Files.readString(workdir.resolve("claude-hooks.log")))
      .as("refused by the PreToolUse hook, before Claude Code's own rules and the prompt tool")
      .contains("Bash exit=2 deny denied by policy: a recursive forced delete (rm -rf)");
    assertThat(workdir.resolve("claude-permissions.log")).doesNotExist();
  }

  // --- the PreToolUse hook: every tool, read-only ones included, passes the gate before it runs ---

  @Test
  void aReadOnlyToolOutsideTheWorkdirIsRefusedBeforeItRuns() throws Exception {
    Path secret = Files.writeString(dir.resolve("id_rsa"), "PRIVATE KEY");
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "read file=" + secret), r);
    assertThat(await(r)).as("the run goes on: the tool was refused, not caught after the fact").isEqualTo("done:I was not allowed to run Read.");
    assertThat(workdir.resolve("read-ran.log")).as("the Read never ran").doesNotExist();
    assertThat(r.events.subList(0, 3)).containsExactly("tool_use:toolu_read:Read", "tool_state:toolu_read:DENIED",
      "tool_result:toolu_read:error:denied by policy: a path outside the working directory");
    assertThat(r.startingWith("tool_")).hasSize(3);
    assertThat(r.events).noneMatch(e -> e.contains("PRIVATE KEY"));
    assertThat(Files.readString(workdir.resolve("claude-hooks.log"))).contains("Read exit=2 deny denied by policy: a path outside the working directory");
    assertThat(workdir.resolve("claude-permissions.log")).as("the prompt tool was never needed").doesNotExist();
  }

  @Test
  void aReadOnlyToolInsideTheWorkdirRunsOnceTheGateAllowedIt() throws Exception {
    Files.writeString(workdir.resolve("plan.md"), "step one");
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "read file=plan.md"), r);
    assertThat(await(r)).isEqualTo("done:Done.");
    assertThat(r.events.subList(0, 4)).containsExactly("tool_use:toolu_read:Read", "tool_state:toolu_read:RUNNING",
      "tool_result:toolu_read:step one", "tool_state:toolu_read:COMPLETED");
    assertThat(Files.readAllLines(workdir.resolve("read-ran.log"))).containsExactly("plan.md");
    assertThat(Files.readString(workdir.resolve("claude-hooks.log"))).contains("Read exit=0 none");
    assertThat(workdir.resolve("claude-permissions.log")).as("Claude Code's own rules let it run: no prompt tool").doesNotExist();
  }

  private static ToolPolicy askForGrep() {
    return ToolPolicy.parse("""
      { "mode": "ask", "read_only": ["Read", "Grep", "LS"],
        "ask": [{ "tool": "Grep", "args": "API_KEY", "why": "searching for keys" }] }""", "test");
  }

  @Test
  void aReadOnlyToolTheCliWouldRunUnaskedWaitsForApprovalWhenThePolicyAsks() throws Exception {
    RecordingResponse r = answering(true, false);
    gated(askForGrep(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "grep env"), r);
    assertThat(await(r)).isEqualTo("done:Done.");
    assertThat(r.events.subList(0, 6)).containsExactly("tool_use:toolu_grep:Grep", "tool_state:toolu_grep:AWAITING_APPROVAL",
      "approval:toolu_grep:Grep", "tool_state:toolu_grep:RUNNING", "tool_result:toolu_grep:no matches",
      "tool_state:toolu_grep:COMPLETED");
    assertThat(Files.readAllLines(workdir.resolve("read-ran.log"))).containsExactly("API_KEY");
  }

  @Test
  void aReadOnlyToolTheCliWouldRunUnaskedNeverRunsWhenTheApprovalIsDenied() throws Exception {
    RecordingResponse r = answering(false, false);
    gated(askForGrep(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "grep env"), r);
    assertThat(await(r)).isEqualTo("done:I was not allowed to run Grep.");
    assertThat(workdir.resolve("read-ran.log")).doesNotExist();
    assertThat(r.events.subList(0, 5)).containsExactly("tool_use:toolu_grep:Grep", "tool_state:toolu_grep:AWAITING_APPROVAL",
      "approval:toolu_grep:Grep", "tool_state:toolu_grep:DENIED", "tool_result:toolu_grep:error:denied: the user did not approve Grep");
  }

  @Test
  void theHookBlocksTheToolWhenTheGateCannotBeReached() throws Exception {
    // the hook's command as Claude Code runs it (sh -c, input on stdin), pointed at a port nobody listens on
    Path curlConfig = Files.writeString(dir.resolve("hook.curl"),
      "url = \"http://127.0.0.1:" + dev.conclave.agentruntime.testing.Ports.free() + "/hook\"\nmax-time = 5\n");
    String command = new JsonObject(PermissionBridge.hookSettings(curlConfig, Duration.ofSeconds(60)))
      .getJsonObject("hooks").getJsonArray("PreToolUse").getJsonObject(0).getJsonArray("hooks").getJsonObject(0).getString("command");
    Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
    p.getOutputStream().flush();
    p.getOutputStream().write("{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Read\",\"tool_input\":{}}".getBytes());
    p.getOutputStream().close();
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("exit code 2: Claude Code blocks the tool call").isEqualTo(2);
    assertThat(new String(p.getInputStream().readAllBytes())).contains("the Conclave tool gate could not be reached");
  }

  @Test
  void eachRunGetsTheHookSettingsAndItsFilesAreOwnerOnlyAndGoneAfterwards() throws Exception {
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "list the files"), r);
    await(r);
    String args = FakeCli.invocations(workdir, "claude").get(0);
    assertThat(args).contains("--settings ");
    Path settings = Path.of(args.substring(args.indexOf("--settings ") + 11).split(" ")[0]);
    assertThat(settings).as("deleted when the run ended").doesNotExist();
    assertThat(Files.readString(workdir.resolve("claude-hooks.log"))).contains("LS exit=0 none");
  }

  @Test
  void anAskedToolRunsOnlyOnceApproved() throws Exception {
    RecordingResponse r = answering(true, false);
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "write notes"), r);
    assertThat(await(r)).isEqualTo("done:Done.");
    assertThat(workdir.resolve("notes.txt")).hasContent("hello");
    assertThat(r.events.subList(0, 6)).containsExactly("tool_use:toolu_write:Write", "tool_state:toolu_write:AWAITING_APPROVAL",
      "approval:toolu_write:Write", "tool_state:toolu_write:RUNNING",
      "tool_result:toolu_write:File created successfully at: notes.txt", "tool_state:toolu_write:COMPLETED");
  }

  @Test
  void anAskedToolThatIsDeniedNeverRuns() throws Exception {
    RecordingResponse r = answering(false, false);
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "write notes"), r);
    assertThat(await(r)).isEqualTo("done:I was not allowed to run Write.");
    assertThat(workdir.resolve("notes.txt")).doesNotExist();
    assertThat(r.events.subList(0, 5)).containsExactly("tool_use:toolu_write:Write", "tool_state:toolu_write:AWAITING_APPROVAL",
      "approval:toolu_write:Write", "tool_state:toolu_write:DENIED", "tool_result:toolu_write:error:denied: the user did not approve Write");
  }

  @Test
  void anAskedToolNobodyAnswersTimesOutAndNeverRuns() throws Exception {
    RecordingResponse r = new RecordingResponse(id -> Promise.<ApprovalDecision>promise().future());
    gated(ToolPolicy.defaults(), Duration.ofSeconds(1)).handle(RecordingResponse.message("req-1", "th-1", "write notes"), r);
    assertThat(await(r)).isEqualTo("done:I was not allowed to run Write.");
    assertThat(workdir.resolve("notes.txt")).doesNotExist();
    assertThat(r.events.subList(0, 5)).containsExactly("tool_use:toolu_write:Write", "tool_state:toolu_write:AWAITING_APPROVAL",
      "approval:toolu_write:Write", "tool_state:toolu_write:TIMEOUT", "tool_result:toolu_write:error:denied: no approval for Write within 1 s");
  }

  @Test
  void approveAllAnswersTheNextQuestionOfTheRequest() throws Exception {
    RecordingResponse r = answering(true, true);
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "two commands"), r);
    assertThat(await(r)).isEqualTo("done:Done.");
    assertThat(r.startingWith("approval:")).containsExactly("approval:toolu_b1:Bash");
    assertThat(Files.readAllLines(workdir.resolve("bash-ran.log"))).containsExactly("mvn -q test", "mvn -q verify");
    assertThat(r.events).contains("tool_state:toolu_b2:RUNNING", "tool_state:toolu_b2:COMPLETED");
  }

  /** The --mcp-config file of the {@code n}th run, as the fake was given it. */
  private Path mcpConfig(int n) {
    String args = FakeCli.invocations(workdir, "claude").get(n);
    return Path.of(args.substring(args.indexOf("--mcp-config ") + 13).split(" ")[0]);
  }

  private static HttpResponse<String> post(String url, String authorization, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5))
      .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}";

  @Test
  void theBridgeRefusesRequestsWithoutTheRunsSecretAndClosesWhenTheRunIsCancelled() throws Exception {
    RecordingResponse r = new RecordingResponse(id -> Promise.<ApprovalDecision>promise().future());
    BackendHandler h = gated(ToolPolicy.defaults(), Duration.ofSeconds(30));
    h.handle(RecordingResponse.message("req-1", "th-1", "write notes"), r);
    Eventually.until("the approval request", () -> r.events.contains("approval:toolu_write:Write"));
    Path file = mcpConfig(0);
    assertThat(Files.getPosixFilePermissions(file)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    JsonObject server = new JsonObject(Files.readString(file)).getJsonObject("mcpServers").getJsonObject("conclave");
    String url = server.getString("url");
    String secret = server.getJsonObject("headers").getString("Authorization");
    assertThat(url).startsWith("http://127.0.0.1:");
    assertThat(post(url, null, LIST).statusCode()).isEqualTo(401);
    assertThat(post(url, "Bearer not-the-secret", LIST).statusCode()).isEqualTo(401);
    HttpResponse<String> listed = post(url, secret, LIST);
    assertThat(listed.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(listed.body()).getJsonObject("result").getJsonArray("tools").getJsonObject(0).getString("name"))
      .isEqualTo("approve");

    r.cancel("user_requested");
    h.onCancel("req-1", "user_requested");
    assertThat(await(r)).isEqualTo("cancelled:user_requested");
    assertThat(workdir.resolve("notes.txt")).doesNotExist();
    Eventually.until("the config with the secret is gone", () -> !Files.exists(file));
    assertThatThrownBy(() -> post(url, secret, LIST)).as("the bridge no longer listens").isInstanceOf(ConnectException.class);
  }

  @Test
  void theBridgeClosesWhenTheRunEnds() throws Exception {
    // read the bridge's address while the run waits for the decision, then deny: the run ends normally
    // (an approval timeout here could end the run before the test had read the address)
    Promise<ApprovalDecision> decision = Promise.promise();
    RecordingResponse r = new RecordingResponse(id -> decision.future());
    gated(ToolPolicy.defaults(), Duration.ofSeconds(60)).handle(RecordingResponse.message("req-1", "th-1", "write notes"), r);
    Eventually.until("the approval request", () -> r.events.contains("approval:toolu_write:Write"));
    Path file = mcpConfig(0);
    JsonObject server = new JsonObject(Files.readString(file)).getJsonObject("mcpServers").getJsonObject("conclave");
    decision.complete(new ApprovalDecision("toolu_write", false, false, false));
    assertThat(await(r)).isEqualTo("done:I was not allowed to run Write.");
    assertThat(file).doesNotExist();
    assertThatThrownBy(() -> post(server.getString("url"), server.getJsonObject("headers").getString("Authorization"), LIST))
      .isInstanceOf(ConnectException.class);
  }
}
