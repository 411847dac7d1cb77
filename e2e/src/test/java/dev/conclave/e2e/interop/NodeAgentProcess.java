package dev.conclave.e2e.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Node.js Coven agent ({@code e2e/interop/coven-agent.js}) running as a real OS process. Its
 * progress lines ({@code coven-agent: <event> key=value ...}) are collected so a test can wait for
 * what the agent saw.
 */
final class NodeAgentProcess implements AutoCloseable {

  /** One progress line of the agent: its event name and its fields. */
  record Line(String event, Map<String, String> fields, String text) {

    String field(String name) {
      String value = fields.get(name);
      if (value == null) {
        throw new AssertionError("agent line has no field '" + name + "': " + text);
      }
      return value;
    }
  }

  // coven-agent.js and coven-ssh-agent.js, and shared-channel.js (SharedChannelCancelIT)
  private static final Pattern PREFIX = Pattern.compile("^(?:coven-agent|shared-channel): (\\S+)(.*)$");
  private static final Pattern FIELD = Pattern.compile("(\\w+)=(\"(?:[^\"\\\\]|\\\\.)*\"|\\S*)");

  private final Process process;
  private final List<String> output = new ArrayList<>();
  private final List<Line> lines = new ArrayList<>();
  private final Thread reader;

  private NodeAgentProcess(Process process) {
    this.process = process;
    this.reader = new Thread(this::read, "node-agent-output");
    this.reader.setDaemon(true);
    this.reader.start();
  }

  /** Where the agent and its node_modules live: system property {@code conclave.interop.dir}. */
  static Path interopDir() {
    return Path.of(System.getProperty("conclave.interop.dir", "interop")).toAbsolutePath().normalize();
  }

  /** The Coven contract the agent loads at run time: system property {@code conclave.coven.proto}. */
  static Path covenProto() {
    return Path.of(System.getProperty("conclave.coven.proto", "../common-proto/src/main/proto/coven.proto")).toAbsolutePath().normalize();
  }

  /**
   * Fails (never skips) when what the agent needs is missing: the {@code node} binary and the npm
   * packages {@code npm ci} installs.
   */
  static String checkPrerequisites() {
    Path dir = interopDir();
    for (String pkg : List.of("@grpc/grpc-js", "@grpc/proto-loader")) {
      if (!Files.isRegularFile(dir.resolve("node_modules").resolve(pkg).resolve("package.json"))) {
        throw new IllegalStateException("npm package " + pkg + " is not installed in " + dir.resolve("node_modules")
          + "; run: (cd " + dir + " && npm ci --no-audit --no-fund --ignore-scripts)  (.ci/run does this)");
      }
    }
    if (!Files.isRegularFile(covenProto())) {
      throw new IllegalStateException("coven.proto not found at " + covenProto());
    }
    try {
      Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
      String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("`node --version` failed: " + version);
      }
      return version;
    } catch (IOException e) {
      throw new IllegalStateException("Node.js is required for the interop test but `node` could not be run: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts {@code node coven-agent.js} against a gateway on 127.0.0.1. */
  static NodeAgentProcess start(int grpcPort, String token, String agentId) {
    List<String> command = List.of("node", interopDir().resolve("coven-agent.js").toString(),
      "--address", "127.0.0.1:" + grpcPort,
      "--proto", covenProto().toString(),
      "--agent-id", agentId,
      "--name", "node interop agent",
      "--heartbeat-ms", "1000",
      "--tick-ms", "100",
      "--long-ms", "20000");
    ProcessBuilder builder = new ProcessBuilder(command).directory(interopDir().toFile()).redirectErrorStream(true);
    // the token goes through the environment, not the command line other users can read
    builder.environment().put("COVEN_AGENT_TOKEN", token);
    try {
      return new NodeAgentProcess(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts another Node.js agent of the interop directory ({@code command} begins with {@code node}
   * and the script) whose progress lines have coven-agent.js's form.
   */
  static NodeAgentProcess launch(List<String> command) {
    return launch(command, Map.of());
  }

  /** {@link #launch(List)} with extra environment variables (a token: never on the command line). */
  static NodeAgentProcess launch(List<String> command, Map<String, String> env) {
    ProcessBuilder builder = new ProcessBuilder(command).directory(interopDir().toFile()).redirectErrorStream(true);
    builder.environment().putAll(env);
    try {
      return new NodeAgentProcess(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes one line to the process's standard input (a command, for scripts that read them). */
  void tell(String line) {
    try {
      process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    } catch (IOException e) {
      throw new AssertionError("could not tell the Node process '" + line + "': " + e + "; its output:\n" + output(), e);
    }
  }

  /** The progress lines with this event so far. */
  synchronized List<Line> lines(String event) {
    return lines.stream().filter(l -> l.event().equals(event)).toList();
  }

  private void read() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String text;
      while ((text = in.readLine()) != null) {
        synchronized (this) {
          output.add(text);
          parse(text).ifPresent(lines::add);
          notifyAll();
        }
      }
    } catch (IOException e) {
      // the process is gone; what it printed is kept
    }
  }

  static Optional<Line> parse(String text) {
    Matcher m = PREFIX.matcher(text);
    if (!m.matches()) {
      return Optional.empty();
    }
    Map<String, String> fields = new java.util.LinkedHashMap<>();
    Matcher f = FIELD.matcher(m.group(2));
    while (f.find()) {
      String value = f.group(2);
      if (value.startsWith("\"")) {
        value = new io.vertx.core.json.JsonArray("[" + value + "]").getString(0);
      }
      fields.put(f.group(1), value);
    }
    return Optional.of(new Line(m.group(1), fields, text));
  }

  /** Waits for the first progress line with this event that matches; fails with the agent's output. */
  Line await(String event, Predicate<Line> matching, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    synchronized (this) {
      while (true) {
        for (Line line : lines) {
          if (line.event().equals(event) && matching.test(line)) {
            return line;
          }
        }
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          throw new AssertionError("the Node agent did not report '" + event + "' within " + limit.toSeconds() + " s; its output:\n" + output());
        }
        if (!process.isAlive() && !reader.isAlive()) {
          throw new AssertionError("the Node agent exited with " + process.exitValue() + " before reporting '" + event + "'; its output:\n" + output());
        }
        try {
          wait(Math.min(left, 200));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }
    }
  }

  Line await(String event, Duration limit) {
    return await(event, line -> true, limit);
  }

  synchronized String output() {
    return String.join("\n", output);
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Sends SIGTERM and waits for the exit code. */
  int terminate(Duration limit) {
    // ProcessHandle, not Process.destroy(): that one also closes the pipe the agent still logs to
    process.toHandle().destroy();
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("the Node agent still ran " + limit.toSeconds() + " s after SIGTERM; its output:\n" + output());
      }
      reader.join(2000);
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
