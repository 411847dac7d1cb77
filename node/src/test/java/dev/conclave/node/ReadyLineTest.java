package dev.conclave.node;

import dev.conclave.platform.testing.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node's ready line says where its start went (issue 45): the total and each phase, which add up
 * to it. A restart on the same data dir finds every schema's migrations applied and leaves Flyway
 * alone. The test reads the real process's log; it asserts no timing.
 */
class ReadyLineTest {

  private static final Pattern SPLIT = Pattern.compile(" ready node=\\S+ .* took=(\\d+)ms \\(jvm (\\d+), setup (\\d+), postgres (\\d+),"
    + " migrations (\\d+), cluster (\\d+), auth (\\d+), roles (\\d+), listen (\\d+)\\)$");

  @Test
  void theReadyLineCarriesTheSplitAndARestartLeavesFlywayAlone(@TempDir Path data) throws Exception {
    List<String> cold = runUntilReadyThenStop(data);
    assertSplit(cold);
    // a new data dir is migrated: by Flyway, or already, as a copy of this build's cluster template
    assertThat(cold).anyMatch(l -> l.contains("migrations: schema=auth no history yet; Flyway validates and migrates")
      || l.contains("database: new cluster copied from template="));

    List<String> warm = runUntilReadyThenStop(data);
    assertSplit(warm);
    for (String schema : List.of("auth", "gateway", "packs", "swarm")) {
      assertThat(warm).as("the restart's log").anyMatch(l -> l.contains("migrations: schema=" + schema + " up to date version="));
    }
    assertThat(warm).noneMatch(l -> l.contains("Flyway validates"));
  }

  private static void assertSplit(List<String> lines) {
    String ready = lines.get(lines.size() - 1);
    Matcher m = SPLIT.matcher(ready);
    assertThat(m.find()).as("the ready line with its split: %s", ready).isTrue();
    long sum = 0;
    for (int i = 2; i <= m.groupCount(); i++) {
      sum += Long.parseLong(m.group(i));
    }
    assertThat(sum).as("the phases add up to the total: %s", ready).isEqualTo(Long.parseLong(m.group(1)));
    assertThat(Long.parseLong(m.group(2))).as("the JVM's start is part of it: %s", ready).isPositive();
  }

  /** The node's output up to and including its ready line; then SIGTERM, and it must exit 0. */
  private static List<String> runUntilReadyThenStop(Path data) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve")
      .redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    pb.environment().putAll(Map.of("CONCLAVE_DATA_DIR", data.toString(), "CONCLAVE_BIND_HOST", "127.0.0.1",
      "CONCLAVE_HTTP_PORT", String.valueOf(FreePorts.next()), "CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next())));
    Process node = pb.start();
    List<String> lines = new ArrayList<>();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
        if (line.contains(" ready node=")) {
          break;
        }
      }
      assertThat(line).as("the node started; output %s", lines).isNotNull();
      Thread drain = new Thread(() -> {
        try {
          while (out.readLine() != null) {
            // discarded
          }
        } catch (java.io.IOException e) {
          // the process ended
        }
      }, "drain");
      drain.setDaemon(true);
      drain.start();
      node.toHandle().destroy();
      assertThat(node.waitFor(60, TimeUnit.SECONDS)).as("stopped after SIGTERM").isTrue();
      assertThat(node.exitValue()).isZero();
      return lines;
    } finally {
      node.destroyForcibly();
    }
  }
}
