package dev.conclave.e2e.swarm;

import dev.conclave.e2e.support.TestJvm;
import dev.conclave.e2e.support.NodeProcess;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * {@code conclave-node.jar agent … --swarm} as a real OS process, with the stand-in Claude Code
 * (agent-runtime's fake-cli/claude-swarm) as its backend: its standard output is kept for the test to
 * wait on, its stand-in logs each tool to a file of its own ({@link #toolLog}).
 */
public final class AgentProgram implements AutoCloseable {

  private final String agentId;
  private final Path workdir;
  private final Path toolLog;
  private final Process process;
  private final List<String> output = new CopyOnWriteArrayList<>();

  private AgentProgram(String agentId, Path workdir, Path toolLog, Process process) {
    this.agentId = agentId;
    this.workdir = workdir;
    this.toolLog = toolLog;
    this.process = process;
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream()))) {
        String line;
        while ((line = in.readLine()) != null) {
          output.add(line);
        }
      } catch (IOException ignored) {
        // the process went away
      }
    }, "agent-" + agentId);
    reader.setDaemon(true);
    reader.start();
  }

  /** The stand-in, installed as an executable under {@code dir}. */
  public static Path installStandIn(Path dir) {
    try {
      Path exe = Files.createDirectories(dir).resolve("claude");
      Files.copy(Path.of("..", "agent-runtime", "src", "test", "resources", "fake-cli", "claude-swarm"), exe);
      Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
      return exe;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the program; {@code flags} come after {@code agent}, besides the agent id and the working directory. */
  public static AgentProgram start(NodeProcess node, Path root, String agentId, String token, Path standIn, List<String> flags) {
    return start(node.grpcPort(), root, agentId, token, standIn, flags);
  }

  /** The same, against the node whose gRPC port is {@code grpcPort}. */
  public static AgentProgram start(int grpcPort, Path root, String agentId, String token, Path standIn, List<String> flags) {
    try {
      Path workdir = Files.createDirectories(root.resolve("work-" + agentId));
      Path toolLog = root.resolve("tools-" + agentId + ".log");
      List<String> cmd = new ArrayList<>(TestJvm.command("200m", "-jar", NodeProcess.jar().toString(), "agent",
        "--agent-id", agentId, "--workdir", workdir.toString(), "--backend", "claude-cli", "--command", standIn.toString()));
      cmd.addAll(flags);
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
      pb.environment().putAll(Map.of("CONCLAVE_ENDPOINTS", "127.0.0.1:" + grpcPort, "CONCLAVE_AGENT_TOKEN", token,
        "CLAUDE_SWARM_LOG", toolLog.toString()));
      return new AgentProgram(agentId, workdir, toolLog, pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String agentId() {
    return agentId;
  }

  public Path workdir() {
    return workdir;
  }

  /** The stand-in's lines: {@code <ms> <task> asked|ran|refused <tool> <path>}. */
  public List<String> tools() {
    try {
      return Files.exists(toolLog) ? Files.readAllLines(toolLog) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String output() {
    return String.join("\n", output);
  }

  public void awaitLine(String prefix, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (output.stream().noneMatch(l -> l.startsWith(prefix))) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("agent " + agentId + " never printed '" + prefix + "'; output:\n" + output());
      }
      sleep(100);
    }
  }

  /** SIGKILL: no chance to release anything. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGTERM; the exit code. */
  public int terminate(Duration limit) {
    process.destroy();
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("agent " + agentId + " still running " + limit.toSeconds() + " s after SIGTERM; output:\n" + output());
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
