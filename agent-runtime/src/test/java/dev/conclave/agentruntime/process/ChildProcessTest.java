package dev.conclave.agentruntime.process;

import dev.conclave.agentruntime.testing.Eventually;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A child process and what it starts, ended by {@link ChildProcess#kill}. */
class ChildProcessTest {

  @TempDir
  Path dir;

  private long running(Path marker) {
    return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(marker.toString())).count();
  }

  @Test
  void aKillEndsAShellThatKeepsForkingAndEverythingItForked() throws Exception {
    // each grandchild holds the child's standard output open: one left behind would keep the run from ending
    Path grandchild = Files.writeString(dir.resolve("grandchild.sh"), "sleep 60\n");
    Path child = Files.writeString(dir.resolve("forker.sh"),
      "echo started\ni=0\nwhile [ $i -lt 1000 ]; do sh " + grandchild + " & sleep 0.01; i=$((i+1)); done\nwait\n");
    for (int round = 0; round < 3; round++) {
      List<String> lines = new CopyOnWriteArrayList<>();
      ChildProcess p = ChildProcess.start(List.of("sh", child.toString()), dir, Map.of(), false, line -> {
        lines.add(line);
        return Future.succeededFuture();
      });
      long deadline = System.currentTimeMillis() + 30_000;
      while (running(grandchild) < 20 && System.currentTimeMillis() < deadline) {
        Thread.sleep(10);
      }
      assertThat(running(grandchild)).as("the shell is forking").isGreaterThanOrEqualTo(20);
      long asked = System.nanoTime();
      Integer code = Eventually.result(p.kill(Duration.ofSeconds(2)));
      System.out.printf("round %d: ended in %d ms, exit %d%n", round, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked), code);
      assertThat(p.killed()).isTrue();
      assertThat(lines).containsExactly("started");
      deadline = System.currentTimeMillis() + 30_000;
      while (running(grandchild) > 0 && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertThat(running(grandchild)).as("nothing the shell forked is left").isZero();
    }
  }

  @Test
  void aChildThatIgnoresSigtermIsKilledAfterTheGrace() throws Exception {
    Path child = Files.writeString(dir.resolve("stubborn.sh"), "trap '' TERM\necho started\nwhile :; do sleep 0.05; done\n");
    CompletableFuture<String> started = new CompletableFuture<>();
    ChildProcess p = ChildProcess.start(List.of("sh", child.toString()), dir, Map.of(), false, line -> {
      started.complete(line);
      return Future.succeededFuture();
    });
    // the trap is set once it printed 'started' (a fixed pause could end before the shell got that far)
    assertThat(started.get(30, TimeUnit.SECONDS)).isEqualTo("started");
    long asked = System.nanoTime();
    Eventually.result(p.kill(Duration.ofMillis(500)));
    assertThat(Duration.ofNanos(System.nanoTime() - asked)).isGreaterThanOrEqualTo(Duration.ofMillis(450));
    assertThat(running(child)).isZero();
  }

  @Test
  void aProgramThatIsMissingOrNotExecutableCannotBeStarted() throws Exception {
    Path plain = Files.writeString(dir.resolve("not-executable.sh"), "echo hi\n");
    for (String program : List.of("conclave-no-such-program", dir.resolve("missing").toString(), plain.toString())) {
      assertThatThrownBy(() -> ChildProcess.start(List.of(program), dir, Map.of(), false, line -> Future.succeededFuture()))
        .isInstanceOf(java.io.IOException.class).hasMessageContaining(program);
    }
  }

  @Test
  void aChildThatExitsByItselfReportsItsCodeAndItsStandardError() throws Exception {
    ChildProcess p = ChildProcess.start(List.of("sh", "-c", "echo out; echo oops >&2; exit 3"), dir, Map.of(), false,
      line -> Future.succeededFuture());
    assertThat(Eventually.result(p.exit())).isEqualTo(3);
    assertThat(p.stderrTail()).isEqualTo("oops");
    assertThat(p.killed()).isFalse();
  }

  @Test
  void theExitCodeComesWithEverythingTheChildWroteToStandardError() throws Exception {
    // the child exits the moment it has written: its last lines are still in the pipe then, and a
    // stale-session retry (claude-cli) depends on reading the last one
    String script = "i=0; while [ $i -lt 400 ]; do echo \"noise $i\" >&2; i=$((i+1)); done; echo 'the last line' >&2; exit 1";
    for (int round = 0; round < 20; round++) {
      ChildProcess p = ChildProcess.start(List.of("sh", "-c", script), dir, Map.of(), false, line -> Future.succeededFuture());
      assertThat(Eventually.result(p.exit())).isEqualTo(1);
      assertThat(p.stderrTail()).as("round %d", round).endsWith("the last line");
    }
  }
}
