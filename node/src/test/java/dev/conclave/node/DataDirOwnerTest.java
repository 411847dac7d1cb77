package dev.conclave.node;

import dev.conclave.platform.testing.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A running node holds its data dir: {@code postgres} on it prints the node's database URL and stops
 * nothing, {@code token} issues through the node's database, and a second node on it is refused at
 * once. Before, {@code postgres} took the node's PostgreSQL for an orphan and stopped it.
 */
class DataDirOwnerTest {

  @Test
  void commandsOnARunningNodesDataDirUseItsDatabaseAndNeverStopIt(@TempDir Path data) throws Exception {
    int http = FreePorts.next();
    Process node = start(data, Map.of("CONCLAVE_HTTP_PORT", String.valueOf(http), "CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next())),
      "serve");
    try {
      List<String> lines = new ArrayList<>();
      BufferedReader out = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
        if (line.contains(" ready node=")) {
          break;
        }
      }
      assertThat(line).as("the node started; output %s", lines).isNotNull();
      drain(out);

      Process postgres = start(data, Map.of(), "postgres", "--data-dir", data.toString(), "--port", String.valueOf(FreePorts.next()));
      assertThat(postgres.waitFor(60, TimeUnit.SECONDS)).as("postgres on a held data dir returns").isTrue();
      String said = new String(postgres.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(postgres.exitValue()).as("exit code; output %s", said).isZero();
      assertThat(said).contains("postgresql://").contains("belongs to node");

      Process token = start(data, Map.of(), "token", "--new-client", "owner-test");
      assertThat(token.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String tokenSaid = new String(token.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(token.exitValue()).as("token exit code; output %s", tokenSaid).isZero();

      Process second = start(data, Map.of("CONCLAVE_HTTP_PORT", String.valueOf(FreePorts.next()),
        "CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next())), "serve");
      assertThat(second.waitFor(60, TimeUnit.SECONDS)).as("a second node on the dir is refused, not left waiting").isTrue();
      String secondSaid = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(second.exitValue()).as("exit code; output %s", secondSaid).isEqualTo(2);
      assertThat(secondSaid).contains("configuration error: CONCLAVE_DATA_DIR:").contains("is in use by node");

      assertThat(ready(http)).as("the node's database still takes new connections").isEqualTo(200);
    } finally {
      node.toHandle().destroy();
      node.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void theTokenCommandRefusesADataDirWhoseNodeUsesAnExternalDatabase(@TempDir Path data) throws Exception {
    // what a cluster node leaves in its data dir: it held the dir with an external database
    java.nio.file.Files.writeString(data.resolve("owner.lock"),
      "{\"pid\":1,\"kind\":\"node\",\"database\":\"external\",\"since\":\"2026-12-01T00:00:00Z\",\"endpoints\":\"\"}");
    Process token = start(data, Map.of(), "token", "--new-client", "x");
    assertThat(token.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String said = new String(token.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(token.exitValue()).as("exit code; output %s", said).isEqualTo(2);
    assertThat(said).contains("uses an external PostgreSQL; set CONCLAVE_PG_URL");
    assertThat(data.resolve("pg")).as("no database created there").doesNotExist();
    assertThat(data.resolve("auth.secret")).as("no secret created there").doesNotExist();
  }

  private static int ready(int port) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    int status = -1;
    for (int i = 0; i < 50 && status != 200; i++) {
      try {
        status = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready")).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
      } catch (java.io.IOException e) {
        status = -1;
      }
      if (status != 200) {
        Thread.sleep(200);
      }
    }
    return status;
  }

  /** Keeps reading a process's output so that it never blocks on a full pipe. */
  private static void drain(BufferedReader out) {
    Thread t = new Thread(() -> {
      try {
        while (out.readLine() != null) {
          // discarded
        }
      } catch (java.io.IOException e) {
        // the process ended
      }
    }, "drain");
    t.setDaemon(true);
    t.start();
  }

  private static Process start(Path data, Map<String, String> env, String... args) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    pb.environment().put("CONCLAVE_DATA_DIR", data.toString());
    pb.environment().put("CONCLAVE_BIND_HOST", "127.0.0.1");
    pb.environment().putAll(env);
    return pb.start();
  }
}
