package dev.conclave.e2e.packs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The Node.js programs in {@code e2e/interop} (a tool pack, an MCP client): where they live, what
 * they need installed, and running one to completion with a time limit.
 */
final class NodeScripts {

  /** How a script that ran to completion ended. */
  record Run(int exitCode, List<String> stdout, String stderr, Duration took) {
  }

  private NodeScripts() {
  }

  /** Where the scripts and their node_modules live: system property {@code conclave.interop.dir}. */
  static Path interopDir() {
    return Path.of(System.getProperty("conclave.interop.dir", "interop")).toAbsolutePath().normalize();
  }

  /** The Coven contract the scripts load at run time: system property {@code conclave.coven.proto}. */
  static Path covenProto() {
    return Path.of(System.getProperty("conclave.coven.proto", "../common-proto/src/main/proto/coven.proto")).toAbsolutePath().normalize();
  }

  /**
   * Fails (never skips) when what the scripts need is missing: the {@code node} binary and the npm
   * packages {@code npm ci} installs. Returns the Node.js version.
   */
  static String checkPrerequisites(String... packages) {
    Path modules = interopDir().resolve("node_modules");
    for (String pkg : packages) {
      if (!Files.isRegularFile(modules.resolve(pkg).resolve("package.json"))) {
        throw new IllegalStateException("npm package " + pkg + " is not installed in " + modules
          + "; run: (cd " + interopDir() + " && npm ci --no-audit --no-fund --ignore-scripts)");
      }
    }
    Run version = run(List.of("node", "--version"), Map.of(), Duration.ofSeconds(20));
    if (version.exitCode() != 0) {
      throw new IllegalStateException("`node --version` failed: " + version.stderr());
    }
    return String.join("", version.stdout()).trim();
  }

  /** Runs a command in the interop directory; kills it and fails the test when it outlives {@code limit}. */
  static Run run(List<String> command, Map<String, String> env, Duration limit) {
    long start = System.nanoTime();
    Process p;
    try {
      ProcessBuilder builder = new ProcessBuilder(command).directory(interopDir().toFile());
      builder.environment().putAll(env);
      p = builder.start();
    } catch (IOException e) {
      throw new IllegalStateException("could not run " + command.get(0) + ": " + e.getMessage(), e);
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try {
      if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
        throw new AssertionError(command + " still ran after " + limit.toSeconds() + " s; stdout:\n" + out.get(5, TimeUnit.SECONDS)
          + "\nstderr:\n" + err.get(5, TimeUnit.SECONDS));
      }
      return new Run(p.exitValue(), out.get(5, TimeUnit.SECONDS).lines().toList(), err.get(5, TimeUnit.SECONDS),
        Duration.ofNanos(System.nanoTime() - start));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new AssertionError(e);
    } catch (Exception e) {
      throw new AssertionError("reading the output of " + command + " failed: " + e, e);
    }
  }

  /** Reads a stream to its end on its own thread, so a full pipe never blocks the process. */
  private static CompletableFuture<String> drain(InputStream in) {
    CompletableFuture<String> text = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (in) {
        text.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        text.complete("(output unreadable: " + e.getMessage() + ")");
      }
    }, "node-script-output");
    reader.setDaemon(true);
    reader.start();
    return text;
  }
}
