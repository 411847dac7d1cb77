package dev.conclave.agentruntime.backend.codex;

import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.InjectionQueue;
import dev.conclave.agentruntime.backend.PackTools;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.agentruntime.gate.ToolPolicy;
import dev.conclave.agentruntime.testing.FakeCli;
import dev.conclave.agentruntime.testing.RecordingResponse;
import dev.conclave.agentruntime.testing.TestContexts;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

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

  private static String await(RecordingResponse r) throws Exception {
    return r.terminal().toCompletionStage().toCompletableFuture().get(15, TimeUnit.SECONDS);
  }

  @Test
  void mapsReasoningCommandsMessagesAndUsageAndResumesTheThread() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults());
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "list the files"), r);
    assertThat(await(r)).isEqualTo("done:Two entries: README.md and src.");
    assertThat(r.events).containsExactly("thinking:**Listing the files**", "tool_use:item_1:shell", "tool_state:item_1:RUNNING",
      "tool_result:item_1:README.md\nsrc\n", "tool_state:item_1:COMPLETED", "text:Two entries: README.md and src.",
      "usage:2400/57", "session_init:0199a213-81c0-7800-8aa1-bbab2a035a53", "done:Two entries: README.md and src.");
    assertThat(FakeCli.invocations(workdir, "codex").get(0))
      .isEqualTo("exec --json --skip-git-repo-check --sandbox read-only list the files");

    RecordingResponse next = new RecordingResponse();
    h.handle(RecordingResponse.message("req-2", "th-1", "more"), next);
    await(next);
    assertThat(FakeCli.invocations(workdir, "codex").get(1)).endsWith("resume 0199a213-81c0-7800-8aa1-bbab2a035a53 more");
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
    h.handle(RecordingResponse.message("req-1", "th-1", "session=stale-thread hello"), earlier);
    await(earlier);
    assertThat(h.sessionOf("th-1")).contains("stale-thread");
    // codex no longer has the thread: resuming it starts no turn
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-2", "th-1", "hello again"), r);
    assertThat(await(r)).isEqualTo("done:Two entries: README.md and src.");
    assertThat(r.events).contains("session_orphaned", "session_init:0199a213-81c0-7800-8aa1-bbab2a035a53");
    var runs = FakeCli.invocations(workdir, "codex");
    assertThat(runs).hasSize(3);
    assertThat(runs.get(1)).endsWith("resume stale-thread hello again");
    assertThat(runs.get(2)).doesNotContain("resume").endsWith("hello again");
  }

  @Test
  void aCancelKillsTheRunningCodexWithinTwoSeconds() throws Exception {
    BackendHandler h = handler(ToolPolicy.defaults());
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "slow"), r);
    long deadline = System.currentTimeMillis() + 10_000;
    while (r.events.isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    long asked = System.nanoTime();
    r.cancel("user_requested");
    h.onCancel("req-1", "user_requested");
    assertThat(await(r)).isEqualTo("cancelled:user_requested");
    assertThat(Duration.ofNanos(System.nanoTime() - asked)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void autoModeWritesInTheWorkspaceButACommandThePolicyDeniesStopsTheRun() throws Exception {
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults().withMode(GateMode.AUTO)).handle(RecordingResponse.message("req-1", "th-1", "clean with rm"), r);
    assertThat(await(r)).startsWith("error:Codex wanted to run shell: denied by policy: a recursive forced delete");
    assertThat(r.events).contains("tool_use:item_1:shell", "tool_state:item_1:DENIED");
    assertThat(FakeCli.invocations(workdir, "codex").get(0)).contains("--sandbox workspace-write");
  }
}
