package dev.conclave.e2e.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** {@link ScriptedAgentMain} as a real OS process, whose stdout lines a test can wait for. */
public final class AgentProcess implements AutoCloseable {

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private AgentProcess(Process process) {
    this.process = process;
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream()))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the process went away
      }
    }, "agent-process-reader");
    reader.setDaemon(true);
    reader.start();
  }

  public static AgentProcess start(int port, String token, String agentId, String mode) {
    try {
      Process p = new ProcessBuilder(TestJvm.command("128m", "-cp", System.getProperty("java.class.path"),
        ScriptedAgentMain.class.getName(), Integer.toString(port), token, agentId, mode))
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
      return new AgentProcess(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs another agent program ({@code main}'s class, with {@code args}) as its own process. */
  public static AgentProcess startMain(Class<?> main, String... args) {
    try {
      List<String> cmd = new java.util.ArrayList<>(TestJvm.command("128m", "-cp", System.getProperty("java.class.path"),
        main.getName()));
      cmd.addAll(List.of(args));
      return new AgentProcess(new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for a line starting with {@code prefix}; returns the rest of it. */
  public String await(String prefix) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try {
      while (System.nanoTime() < deadline) {
        String line = lines.poll(200, TimeUnit.MILLISECONDS);
        if (line != null && line.startsWith(prefix)) {
          return line.substring(prefix.length()).trim();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new AssertionError("agent process never printed '" + prefix + "'");
  }

  /** The next line starting with {@code prefix} within {@code ms}, or null. */
  public String poll(String prefix, long ms) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
    try {
      while (System.nanoTime() < deadline) {
        String line = lines.poll(50, TimeUnit.MILLISECONDS);
        if (line != null && line.startsWith(prefix)) {
          return line.substring(prefix.length()).trim();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return null;
  }

  /** SIGKILL: the agent gets no chance to say goodbye. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }
}
