package dev.conclave.agentruntime.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** SIGTERM completes the agent's stop; the process exits with the code the run returned. */
class StopOnExitTest {

  @Test
  void sigtermStopsTheRunAndExitsWithItsCode() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Probe.class.getName())
      .redirectErrorStream(true)
      .start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      assertThat(line).isEqualTo("ready");
      p.toHandle().destroy(); // SIGTERM (Process.destroy would also close our end of its output)
      while ((line = out.readLine()) != null) {
        lines.add(line);
      }
    }
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("exit code; output %s", lines).isZero();
    assertThat(lines).containsExactly("stopping (shutdown signal)", "in-flight request cancelled");
  }

  /** Stands in for {@code AgentCommand.call}: runs until stopped, then returns 0. */
  static final class Probe {
    public static void main(String[] args) {
      CompletableFuture<String> stop = new CompletableFuture<>();
      StopOnExit exit = StopOnExit.install(stop);
      System.out.println("ready");
      System.out.flush();
      System.out.println("stopping (" + stop.join() + ")");
      System.out.println("in-flight request cancelled");
      exit.finished(0);
      // the main thread returns; the hook ends the process with the code
    }
  }
}
