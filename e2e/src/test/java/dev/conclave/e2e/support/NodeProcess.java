package dev.conclave.e2e.support;

import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@code conclave-node.jar} running as a real OS process on 127.0.0.1 (or on a pod's address in a
 * network namespace, {@link NetnsCluster}), with its output in a log file. The test decides how it
 * ends: SIGTERM ({@link #terminate}) or SIGKILL ({@link #kill}).
 */
public final class NodeProcess implements AutoCloseable {

  // HTTP/1.1: the JDK client's default HTTP/2 upgrade once hung past its timeout on a busy node
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(2)).build();

  private static final String DEFAULT_HEAP = "512m";

  private final Process process;
  private final Path log;
  private final String host;
  private final int grpcPort;
  private final int httpPort;
  private final Path dataDir;

  private NodeProcess(Process process, Path log, String host, int grpcPort, int httpPort, Path dataDir) {
    this.process = process;
    this.log = log;
    this.host = host;
    this.grpcPort = grpcPort;
    this.httpPort = httpPort;
    this.dataDir = dataDir;
  }

  /** The built node jar: the {@code conclave.node.jar} property, or found from the e2e or root directory. */
  public static Path jar() {
    List<Path> candidates = new ArrayList<>();
    if (System.getProperty("conclave.node.jar") != null) {
      candidates.add(Path.of(System.getProperty("conclave.node.jar")));
    }
    candidates.add(Path.of("../node/target/conclave-node.jar"));
    candidates.add(Path.of("node/target/conclave-node.jar"));
    for (Path c : candidates) {
      if (Files.isRegularFile(c)) {
        return c.toAbsolutePath().normalize();
      }
    }
    throw new IllegalStateException("node jar not built (looked at " + candidates + "); run mvn -B -ntp install -DskipTests");
  }

  /** Starts {@code java -jar conclave-node.jar serve} with the given extra environment. */
  public static NodeProcess start(Path dataDir, Map<String, String> extraEnv) {
    return start(dataDir, FreePorts.next(), FreePorts.next(), extraEnv);
  }

  public static NodeProcess start(Path dataDir, int grpcPort, int httpPort, Map<String, String> extraEnv) {
    return start(List.of(), "127.0.0.1", dataDir, grpcPort, httpPort, extraEnv);
  }

  /**
   * Starts the node with {@code wrapper} before the java command (for example
   * {@code ip netns exec <namespace>}), listening on {@code host}.
   */
  public static NodeProcess start(List<String> wrapper, String host, Path dataDir, int grpcPort, int httpPort,
                                  Map<String, String> extraEnv) {
    return start(wrapper, host, dataDir, grpcPort, httpPort, DEFAULT_HEAP, extraEnv);
  }

  /** As {@link #start(Path, Map)}, with a maximum heap of {@code maxHeap} ({@code -Xmx}, for example {@code 1g}). */
  public static NodeProcess start(Path dataDir, String maxHeap, Map<String, String> extraEnv) {
    return start(List.of(), "127.0.0.1", dataDir, FreePorts.next(), FreePorts.next(), maxHeap, extraEnv);
  }

  private static NodeProcess start(List<String> wrapper, String host, Path dataDir, int grpcPort, int httpPort, String maxHeap,
                                   Map<String, String> extraEnv) {
    try {
      Files.createDirectories(dataDir);
      Path log = Files.createTempFile(dataDir.getParent(), "node-", ".log");
      Map<String, String> env = new HashMap<>();
      env.put("CONCLAVE_DATA_DIR", dataDir.toString());
      env.put("CONCLAVE_GRPC_PORT", String.valueOf(grpcPort));
      env.put("CONCLAVE_HTTP_PORT", String.valueOf(httpPort));
      env.put("CONCLAVE_BIND_HOST", host);
      env.put("CONCLAVE_EDGE_INSTANCES", "2");
      // nodes of one test share a database (a cluster, or restarts): they share the secrets key too
      env.put("CONCLAVE_SECRETS_KEY", TestNode.SECRETS_KEY);
      env.putAll(extraEnv);
      List<String> cmd = new ArrayList<>(wrapper);
      cmd.addAll(javaCommand(maxHeap, "serve"));
      ProcessBuilder builder = new ProcessBuilder(cmd)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
      builder.environment().putAll(env);
      return new NodeProcess(builder.start(), log, host, grpcPort, httpPort, dataDir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a CLI subcommand of the node jar to completion; returns its stdout. */
  public static String cli(Map<String, String> env, String... args) {
    try {
      List<String> cmd = command(args);
      ProcessBuilder builder = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
      builder.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
      builder.environment().putAll(env);
      Process p = builder.start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("CLI " + String.join(" ", args) + " did not finish");
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("CLI " + String.join(" ", args) + " exited " + p.exitValue());
      }
      return out.trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static List<String> command(String... args) {
    return javaCommand(DEFAULT_HEAP, args);
  }

  private static List<String> javaCommand(String maxHeap, String... args) {
    List<String> cmd = TestJvm.command(maxHeap, "-jar", jar().toString());
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Waits until {@code /health/ready} answers 200; returns how long it took. */
  public Duration awaitReady(Duration limit) {
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("node exited with " + process.exitValue() + " before ready; log:\n" + logText());
      }
      if (readyStatus() == 200) {
        return Duration.ofNanos(System.nanoTime() - start);
      }
      sleep(200);
    }
    throw new IllegalStateException("node not ready within " + limit.toSeconds() + " s; log:\n" + logText());
  }

  /** The status of {@code /health/ready}, or -1 when nothing answers. */
  public int readyStatus() {
    try {
      HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + host + ":" + httpPort + "/health/ready"))
        .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.discarding());
      return r.statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Sends SIGTERM and waits for the exit code. */
  public int terminate(Duration limit) {
    process.destroy();
    return awaitExit(limit);
  }

  /** Sends SIGKILL: the process gets no chance to clean up. */
  public void kill() {
    process.destroyForcibly();
    awaitExit(Duration.ofSeconds(10));
  }

  public int awaitExit(Duration limit) {
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException("node still running " + limit.toSeconds() + " s after the signal; log:\n" + logText());
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public String logText() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** The address the node listens on. */
  public String host() {
    return host;
  }

  public int grpcPort() {
    return grpcPort;
  }

  public int httpPort() {
    return httpPort;
  }

  public Path dataDir() {
    return dataDir;
  }

  public long pid() {
    return process.pid();
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
