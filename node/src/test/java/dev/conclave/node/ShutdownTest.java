package dev.conclave.node;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** SIGTERM runs the stop in the shutdown hook; the exit code follows {@link Shutdown}'s rule. */
class ShutdownTest {

  @Test
  void sigtermAfterACleanStopExitsZero() throws Exception {
    Result r = runAndTerminate("clean");
    assertThat(r.code).as("exit code; output %s", r.lines).isZero();
    assertThat(r.lines).contains("ready", "stopped");
  }

  @Test
  void aStopThatThrowsExitsOne() throws Exception {
    Result r = runAndTerminate("throw");
    assertThat(r.code).as("exit code; output %s", r.lines).isEqualTo(1);
  }

  @Test
  void theRuleIsZeroWhenTheStopReturnsAndOneWhenItThrows() {
    assertThat(Shutdown.exitCode(() -> { })).isZero();
    assertThat(Shutdown.exitCode(() -> {
      throw new IllegalStateException("drain failed");
    })).isEqualTo(1);
  }

  private record Result(int code, List<String> lines) {
  }

  private static Result runAndTerminate(String mode) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), ShutdownProbe.class.getName(), mode)
      .redirectErrorStream(true)
      .start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      lines.add(line);
      assertThat(line).as("probe started").isEqualTo("ready");
      p.toHandle().destroy(); // SIGTERM (Process.destroy would also close our end of its output)
      while ((line = out.readLine()) != null) {
        lines.add(line);
      }
    }
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("probe exits").isTrue();
    return new Result(p.exitValue(), lines);
  }
}
