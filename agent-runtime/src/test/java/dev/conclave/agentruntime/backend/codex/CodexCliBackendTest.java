package dev.conclave.agentruntime.backend.codex;

import dev.conclave.agent.ApprovalDecision;
import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.InjectionQueue;
import dev.conclave.agentruntime.backend.PackTools;
import dev.conclave.agentruntime.backend.cli.CliSettings;
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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The codex-cli backend against a fake {@code codex} printing {@code codex exec --json} events. */
class CodexCliBackendTest {

  private final Vertx vertx = Vertx.vertx();
  @TempDir
  Path dir;
  private Path workdir;
  private Path exe;

  @BeforeEach
  void install() throws Exception {
    exe = FakeCli.install("codex", dir);
    workdir = Files.createDirectories(dir.resolve("work"));
  }

  @AfterEach
  void close() {
    vertx.close().await();
  }

  private BackendHandler handler(ToolPolicy policy) {
    BackendContext context = TestContexts.context(vertx, workdir, policy, PackTools.none(), new InjectionQueue(4), Duration.ofSeconds(5));
    return new BackendHandler(vertx, new CodexCliBackend(context, new CliSettings(exe.toString(), Optional.empty())), Duration.ofMillis(50), 64);
  }

  private static String await(RecordingResponse r) {
    return Eventually.result(r.terminal());
  }

  @Test
  void theRunGetsTheRequestsTraceContextInItsEnvironment() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults());
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "list the files",
      dev.conclave.agent.TraceContext.of(java.util.Map.of("traceparent", traceparent))), r);
    await(r);
    assertThat(FakeCli.traceEnvironment(workdir, "codex")).containsExactly("TRACEPARENT=" + traceparent + " TRACESTATE=");
  }

  @Test
  void mapsReasoningCommandsMessagesAndUsageAndResumesTheThread() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults());
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "list the files"), r);
    assertThat(await(r)).isEqualTo("done:Two entries: README.md and src.");
    // ls is one of Codex's known-safe commands: it would run unasked; the PreToolUse hook makes it pass
    // the gate, and the default policy asks for shell commands
    assertThat(r.events).containsExactly("thinking:**Listing the files**", "tool_use:item_1:shell",
      "tool_state:item_1:AWAITING_APPROVAL", "approval:item_1:shell", "tool_state:item_1:RUNNING",
      "tool_result:item_1:README.md\nsrc\n", "tool_state:item_1:COMPLETED", "text:Two entries: README.md and src.",
      "usage:2400/57", "session_init:0199a213-81c0-7800-8aa1-bbab2a035a53", "done:Two entries: README.md and src.");
    assertThat(FakeCli.invocations(workdir, "codex").get(0)).isEqualTo("app-server");
    JsonObject start = request("thread/start", 0);
    assertThat(start.getString("approvalPolicy")).isEqualTo("untrusted");
    assertThat(start.getString("sandbox")).isEqualTo("workspace-write");
    assertThat(start.getString("cwd")).isEqualTo(workdir.toString());
    JsonObject config = start.getJsonObject("config");
    assertThat(config.getBoolean("bypass_hook_trust")).isTrue();
    assertThat(config.getJsonObject("hooks").getJsonArray("PreToolUse").getJsonObject(0).getJsonArray("hooks").getJsonObject(0)
      .getString("command")).startsWith("curl -s --fail-with-body -K '");
    assertThat(Files.readString(workdir.resolve("codex-hooks.log"))).contains("Bash exit=0 none");
    assertThat(request("initialize", 0).getJsonObject("clientInfo").getString("name")).isEqualTo("conclave_agent");

    RecordingResponse next = new RecordingResponse();
    h.handle(RecordingResponse.message("req-2", "th-1", "more"), next);
    await(next);
    assertThat(request("thread/resume", 0).getString("threadId")).isEqualTo("0199a213-81c0-7800-8aa1-bbab2a035a53");
    assertThat(request("thread/resume", 0).getJsonObject("config").containsKey("hooks")).as("a resumed thread gets the hook too").isTrue();
    assertThat(request("turn/start", 1).getJsonArray("input").getJsonObject(0).getString("text")).isEqualTo("more");
  }

  /** The params of the {@code n}th request of {@code method} the fake received. */
  private JsonObject request(String method, int n) throws Exception {
    return Files.readAllLines(workdir.resolve("codex-requests.log")).stream().map(JsonObject::new)
      .filter(m -> method.equals(m.getString("method"))).skip(n).findFirst().orElseThrow().getJsonObject("params");
  }

  @Test
  void an529TurnFailureIsRetriedOnceAndAQuotaErrorIsNot() throws Exception {
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-1", "th-1", "overloaded-once"), r);
    assertThat(await(r)).isEqualTo("done:Two entries: README.md and src.");
    assertThat(FakeCli.invocations(workdir, "codex")).hasSize(2);

    RecordingResponse q = new RecordingResponse();
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-2", "th-2", "quota"), q);
    assertThat(await(q)).isEqualTo("error:Codex failed: You have exceeded your quota: insufficient_quota");
    assertThat(FakeCli.invocations(workdir, "codex")).hasSize(3);
  }

  @Test
  void aResumedThreadWithNoTurnIsStaleAndRunsFresh() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults());
    RecordingResponse earlier = new RecordingResponse();
    Files.writeString(workdir.resolve("codex-next-thread"), "stale-thread");
    h.handle(RecordingResponse.message("req-1", "th-1", "hello"), earlier);
    await(earlier);
    assertThat(h.sessionOf("th-1")).contains("stale-thread");
    // codex no longer has the thread: resuming it starts no turn
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-2", "th-1", "hello again"), r);
    assertThat(await(r)).isEqualTo("done:Two entries: README.md and src.");
    assertThat(r.events).contains("session_orphaned", "session_init:0199a213-81c0-7800-8aa1-bbab2a035a53");
    assertThat(FakeCli.invocations(workdir, "codex")).hasSize(3);
    assertThat(request("thread/resume", 0).getString("threadId")).isEqualTo("stale-thread");
    assertThat(request("thread/start", 1).containsKey("threadId")).isFalse();
    assertThat(request("turn/start", 1).getJsonArray("input").getJsonObject(0).getString("text")).isEqualTo("hello again");
  }

  /** As claude-cli's: the fake, which would run for 10 minutes, records that SIGTERM ended it; no time is measured. */
  @Test
  void aCancelKillsTheRunningCodex() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults());
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "slow"), r);
    Eventually.until("codex is working", () -> !r.events.isEmpty());
    r.cancel("user_requested");
    h.onCancel("req-1", "user_requested");
    assertThat(await(r)).isEqualTo("cancelled:user_requested");
    // SIGTERM ended it (not SIGKILL, not its own end); the cancel and the request's end may both signal the
    // group before it is gone, and a loaded machine lets its trap run for each
    assertThat(FakeCli.signals(workdir, "codex")).isNotEmpty().containsOnly("slow: SIGTERM");
    assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(exe.toString())))
      .as("no fake codex left running").isEmpty();
  }

  // --- approvals: every command and patch Codex asks about passes the gate before it runs ---

  private BackendHandler gated(ToolPolicy policy, Duration approvalTimeout) {
    BackendContext context = TestContexts.context(vertx, workdir, policy, PackTools.none(), new InjectionQueue(4), approvalTimeout);
    return new BackendHandler(vertx, new CodexCliBackend(context, new CliSettings(exe.toString(), Optional.empty())), Duration.ofMillis(50), 64);
  }

  private static RecordingResponse answering(boolean approved, boolean all) {
    return new RecordingResponse(id -> Future.succeededFuture(new ApprovalDecision(id, approved, all, false)));
  }

  private List<String> ran() throws Exception {
    Path log = workdir.resolve("codex-ran.log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  @Test
  void aCommandThePolicyDeniesIsDeclinedAndNeverRuns() throws Exception {
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults().withMode(GateMode.AUTO), Duration.ofSeconds(5))
      .handle(RecordingResponse.message("req-1", "th-1", "clean with rm"), r);
    assertThat(await(r)).isEqualTo("done:I was not allowed to remove build.");
    assertThat(ran()).as("rm -rf never ran").isEmpty();
    assertThat(r.events.subList(0, 3)).containsExactly("tool_use:item_1:shell", "tool_state:item_1:DENIED",
      "tool_result:item_1:error:denied by policy: a recursive forced delete (rm -rf)");
    assertThat(r.startingWith("tool_")).as("the declined item is not reported twice").hasSize(3);
  }

  @Test
  void aCommandThePolicyAllowsRunsWithoutAsking() throws Exception {
    RecordingResponse r = new RecordingResponse(id -> Future.failedFuture("nobody should be asked"));
    gated(ToolPolicy.defaults().withMode(GateMode.AUTO), Duration.ofSeconds(5))
      .handle(RecordingResponse.message("req-1", "th-1", "run the tests"), r);
    assertThat(await(r)).isEqualTo("done:The tests pass.");
    assertThat(ran()).containsExactly("mvn -q test");
    assertThat(r.events.subList(0, 4)).containsExactly("tool_use:item_1:shell", "tool_state:item_1:RUNNING",
      "tool_result:item_1:ran: mvn -q test\n", "tool_state:item_1:COMPLETED");
  }

  @Test
  void anAskedCommandRunsOnlyOnceApproved() throws Exception {
    RecordingResponse r = answering(true, false);
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "run the tests"), r);
    assertThat(await(r)).isEqualTo("done:The tests pass.");
    assertThat(ran()).containsExactly("mvn -q test");
    assertThat(r.events.subList(0, 6)).containsExactly("tool_use:item_1:shell", "tool_state:item_1:AWAITING_APPROVAL",
      "approval:item_1:shell", "tool_state:item_1:RUNNING", "tool_result:item_1:ran: mvn -q test\n", "tool_state:item_1:COMPLETED");
  }

  @Test
  void anAskedCommandThatIsDeniedNeverRuns() throws Exception {
    RecordingResponse r = answering(false, false);
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "run the tests"), r);
    assertThat(await(r)).isEqualTo("done:The tests were not run.");
    assertThat(ran()).isEmpty();
    assertThat(r.events.subList(0, 5)).containsExactly("tool_use:item_1:shell", "tool_state:item_1:AWAITING_APPROVAL",
      "approval:item_1:shell", "tool_state:item_1:DENIED", "tool_result:item_1:error:denied: the user did not approve shell");
  }

  @Test
  void anAskedCommandNobodyAnswersTimesOutAndNeverRuns() throws Exception {
    RecordingResponse r = new RecordingResponse(id -> Promise.<ApprovalDecision>promise().future());
    gated(ToolPolicy.defaults(), Duration.ofSeconds(1)).handle(RecordingResponse.message("req-1", "th-1", "run the tests"), r);
    assertThat(await(r)).isEqualTo("done:The tests were not run.");
    assertThat(ran()).isEmpty();
    assertThat(r.events.subList(0, 5)).containsExactly("tool_use:item_1:shell", "tool_state:item_1:AWAITING_APPROVAL",
      "approval:item_1:shell", "tool_state:item_1:TIMEOUT", "tool_result:item_1:error:denied: no approval for shell within 1 s");
  }

  @Test
  void approveAllAnswersTheNextQuestionOfTheRequest() throws Exception {
    RecordingResponse r = answering(true, true);
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "two commands"), r);
    assertThat(await(r)).isEqualTo("done:Both ran.");
    assertThat(r.startingWith("approval:")).containsExactly("approval:item_1:shell");
    assertThat(ran()).containsExactly("mvn -q test", "mvn -q verify");
  }

  @Test
  void aPatchIsAskedForWithItsChangesAndAppliedOnlyOnceApproved() throws Exception {
    RecordingResponse denied = answering(false, false);
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "write notes"), denied);
    assertThat(await(denied)).as("refused in the PreToolUse hook, before Codex's own approval request").isEqualTo("done:Patch blocked.");
    assertThat(workdir.resolve("notes.txt")).doesNotExist();
    assertThat(denied.events).contains("tool_use:item_3:apply_patch", "approval:item_3:apply_patch", "tool_state:item_3:DENIED");
    assertThat(Files.readString(workdir.resolve("codex-hooks.log"))).contains("apply_patch exit=2 blocked denied: the user did not approve apply_patch");

    RecordingResponse approved = answering(true, false);
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-2", "th-2", "write notes"), approved);
    assertThat(await(approved)).isEqualTo("done:Patch completed.");
    assertThat(workdir.resolve("notes.txt")).hasContent("hello");
    assertThat(approved.events).contains("tool_use:item_3:apply_patch", "approval:item_3:apply_patch",
      "tool_state:item_3:RUNNING", "tool_state:item_3:COMPLETED");
  }

  // --- the PreToolUse hook: known-safe commands, which Codex runs without asking, pass the gate first ---

  @Test
  void aKnownSafeReadOutsideTheWorkdirIsRefusedBeforeItRuns() throws Exception {
    Path secret = Files.writeString(dir.resolve("id_rsa"), "PRIVATE KEY");
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults(), Duration.ofSeconds(5)).handle(RecordingResponse.message("req-1", "th-1", "cat file=" + secret), r);
    assertThat(await(r)).as("the run goes on: refused, not caught after the fact").isEqualTo("done:I was not allowed to read it.");
    assertThat(workdir.resolve("codex-ran.log")).as("cat never ran").doesNotExist();
    assertThat(r.events.subList(0, 3)).containsExactly("tool_use:item_4:shell", "tool_state:item_4:DENIED",
      "tool_result:item_4:error:denied by policy: a path outside the working directory");
    assertThat(r.events).noneMatch(e -> e.contains("PRIVATE KEY"));
    assertThat(Files.readString(workdir.resolve("codex-hooks.log")))
      .contains("Bash exit=2 blocked denied by policy: a path outside the working directory");
  }

  @Test
  void aKnownSafeReadInsideTheWorkdirRunsOnceTheGateAllowedIt() throws Exception {
    Files.writeString(workdir.resolve("plan.md"), "step one");
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults().withMode(GateMode.AUTO), Duration.ofSeconds(5))
      .handle(RecordingResponse.message("req-1", "th-1", "cat file=plan.md"), r);
    assertThat(await(r)).isEqualTo("done:Read it.");
    assertThat(r.events.subList(0, 4)).containsExactly("tool_use:item_4:shell", "tool_state:item_4:RUNNING",
      "tool_result:item_4:step one", "tool_state:item_4:COMPLETED");
    assertThat(Files.readAllLines(workdir.resolve("codex-ran.log"))).containsExactly("cat plan.md");
  }

  @Test
  void planModeRunsCodexReadOnly() throws Exception {
    RecordingResponse r = new RecordingResponse();
    gated(ToolPolicy.defaults().withMode(GateMode.PLAN), Duration.ofSeconds(5))
      .handle(RecordingResponse.message("req-1", "th-1", "list the files"), r);
    await(r);
    assertThat(request("thread/start", 0).getString("sandbox")).isEqualTo("read-only");
  }
}
