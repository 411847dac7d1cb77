package dev.conclave.e2e.cli;

import dev.conclave.e2e.support.TestJvm;
import dev.conclave.e2e.support.NodeProcess;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One client command of the node jar ({@code java -jar conclave-node.jar send …}, what {@code ./conclave
 * send …} runs) as a real OS process, with only the environment the test gives it (no
 * {@code CONCLAVE_*} of the test's own), its stdout and stderr collected as they come.
 */
final class CliProcess {

  /** What a finished command printed and how it ended. */
  record Result(int exit, String out, String err) {
  }

  private final Process process;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private CliProcess(Process process) {
    this.process = process;
    drain(process.getInputStream(), out);
    drain(process.getErrorStream(), err);
  }

  static CliProcess start(Map<String, String> env, String... args) {
    List<String> cmd = new ArrayList<>();
    if (sigintIgnored()) {
      // a child inherits an ignored SIGINT (a test run started in the background); the JVM would then
      // never see Ctrl-C, so the command starts with SIGINT's default action restored, as PageShell does
      cmd.addAll(List.of("env", "--default-signal=INT"));
    }
    cmd.addAll(TestJvm.command("256m", "-XX:TieredStopAtLevel=1", "-jar", NodeProcess.jar().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(cmd);
    builder.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_") || k.equals("XDG_CONFIG_HOME"));
    builder.environment().putAll(env);
    try {
      return new CliProcess(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a command to its end. */
  static Result run(Map<String, String> env, String... args) {
    return start(env, args).await(120);
  }

  /** Runs a command to its end with {@code input} as its stdin. */
  static Result runWithInput(Map<String, String> env, String input, String... args) {
    CliProcess p = start(env, args);
    try (var stdin = p.process.getOutputStream()) {
      stdin.write(input.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return p.await(120);
  }

  Result await(long seconds) {
    try {
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("the command did not end within " + seconds + " s; printed: " + out() + " / " + err());
      }
      // the readers may still hold the last bytes
      Thread.sleep(100);
      return new Result(process.exitValue(), out(), err());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Waits until stdout holds {@code text}. */
  void awaitOut(String text, long seconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!out().contains(text)) {
      if (System.nanoTime() > deadline || !process.isAlive() && !out().contains(text)) {
        throw new AssertionError("never printed '" + text + "'; printed: " + out() + " / " + err());
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  /** Ctrl-C: SIGINT to the command's JVM. */
  void interrupt() throws Exception {
    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -INT failed");
    }
  }

  String out() {
    synchronized (out) {
      return out.toString(StandardCharsets.UTF_8);
    }
  }

  String err() {
    synchronized (err) {
      return err.toString(StandardCharsets.UTF_8);
    }
  }

  private static void drain(InputStream in, ByteArrayOutputStream into) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[4096];
      try (in) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          synchronized (into) {
            into.write(buf, 0, n);
          }
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "cli-output");
    t.setDaemon(true);
    t.start();
  }

  private static boolean sigintIgnored() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("SigIgn:")) {
          return (Long.parseLong(line.substring(7).strip(), 16) & 0x2L) != 0;
        }
      }
    } catch (IOException | NumberFormatException e) {
      // not Linux: assume the default
    }
    return false;
  }
}
