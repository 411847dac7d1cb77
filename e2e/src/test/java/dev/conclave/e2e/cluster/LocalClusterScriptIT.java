package dev.conclave.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/local-cluster.sh} as a user runs it, with one node on a base port in the tests'
 * range (below the ephemeral ports) and a directory of its own: it prints the node's endpoints on
 * ports derived from the base port and a token command that works against the cluster (the node's
 * own data dir holds no database, and a token command pointed at it refuses and names
 * CONCLAVE_PG_URL); SIGTERM stops everything it started.
 */
class LocalClusterScriptIT {

  private static final Path ROOT = LocalClusterScriptTest.ROOT;
  private static final Duration START_LIMIT = Duration.ofMinutes(4);

  @TempDir
  Path dir;


  private static ProcessBuilder clean(ProcessBuilder pb) {
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    return pb;
  }

  @Test
  void oneNodeOnAMovedBasePortPrintsItsEndpointsAndAWorkingTokenCommand() throws Exception {
    int base = dev.conclave.platform.testing.FreePorts.block(40);
    Path cluster = dir.resolve("cluster");
    ProcessBuilder pb = clean(new ProcessBuilder("bash", LocalClusterScriptTest.SCRIPT.toString(), "--base-port", String.valueOf(base),
      "--dir", cluster.toString(), "1"));
    pb.environment().put("CONCLAVE_JAVA_OPTS", "-Xmx384m");
    pb.redirectError(dir.resolve("script.err").toFile());
    Process script = pb.start();
    List<ProcessHandle> started = new java.util.ArrayList<>();
    List<String> out = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(script.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          out.add(line);
          if (line.startsWith("Agents: ")) {
            ready.complete(null);
          }
        }
      } catch (IOException ignored) {
        // the script ended
      }
      ready.completeExceptionally(new AssertionError("the script ended before it was ready; stderr: " + read(dir.resolve("script.err"))));
    }, "local-cluster-stdout");
    reader.setDaemon(true);
    reader.start();
    try {
      ready.get(START_LIMIT.toSeconds(), TimeUnit.SECONDS);

      int grpc = base + 1;
      int http = base + 11;
      assertThat(out).as("the endpoints table").anySatisfy(line -> assertThat(line.split("\\s+"))
        .containsExactly("node-1", "127.0.0.1:" + grpc, "http://127.0.0.1:" + http, cluster.resolve("node-1/admin.token").toString()));
      assertThat(out).contains("Agents: CONCLAVE_ENDPOINTS=127.0.0.1:" + grpc);
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      assertThat(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/health/ready")).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);

      // the printed token command: its variables, read as the shell reads them, issue a token the node accepts
      Pattern command = Pattern.compile("^  CONCLAVE_PG_URL=\"\\$\\(cat (\\S+)\\)\" CONCLAVE_AUTH_SECRET=\"\\$\\(cat (\\S+)\\)\" (\\S+) token --new-agent my-agent$");
      Matcher m = out.stream().map(command::matcher).filter(Matcher::matches).findFirst()
        .orElseThrow(() -> new AssertionError("no token command in " + out));
      assertThat(Path.of(m.group(3))).isEqualTo(ROOT.resolve("conclave"));
      String jar = ROOT.resolve("node/target/conclave-node.jar").toString();
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process token = clean(new ProcessBuilder("bash", "-c", "CONCLAVE_PG_URL=\"$(cat " + m.group(1) + ")\" CONCLAVE_AUTH_SECRET=\"$(cat "
        + m.group(2) + ")\" exec " + java + " -jar " + jar + " token --new-client e2e-member"))
        .directory(dir.toFile()).redirectError(dir.resolve("token.err").toFile()).start();
      String issued = new String(token.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      assertThat(token.waitFor(2, TimeUnit.MINUTES)).isTrue();
      assertThat(token.exitValue()).as(read(dir.resolve("token.err"))).isZero();
      HttpResponse<String> agents = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http + "/api/v1/gateway/agents"))
        .header("authorization", "Bearer " + issued).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(agents.statusCode()).as(agents.body()).isEqualTo(200);

      // the node's data dir alone is no way to a token: the command says what it needs
      Process refused = clean(new ProcessBuilder(java, "-jar", jar, "token", "--new-client", "nobody", "--data-dir",
        cluster.resolve("node-1").toString())).directory(dir.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(dir.resolve("refused.err").toFile()).start();
      assertThat(refused.waitFor(2, TimeUnit.MINUTES)).isTrue();
      assertThat(refused.exitValue()).isEqualTo(2);
      assertThat(read(dir.resolve("refused.err"))).contains("CONCLAVE_PG_URL");
    } finally {
      started.addAll(script.descendants().toList());
      script.toHandle().destroy();   // SIGTERM: the script stops the node, then PostgreSQL
      boolean ended = script.waitFor(2, TimeUnit.MINUTES);
      if (!ended) {
        script.descendants().forEach(ProcessHandle::destroyForcibly);
        script.destroyForcibly();
      }
      assertThat(ended).as("the script stops on SIGTERM").isTrue();
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (started.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(started).as("nothing the script started is left").noneMatch(ProcessHandle::isAlive);
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      return e.toString();
    }
  }
}
