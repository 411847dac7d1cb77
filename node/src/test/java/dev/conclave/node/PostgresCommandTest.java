package dev.conclave.node;

import dev.conclave.platform.testing.FreePorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code conclave postgres}: PostgreSQL's own complaint (a port in use) is shown at once instead of a
 * long silent wait, and SIGTERM stops it and the JVM.
 */
class PostgresCommandTest {

  @Test
  void aPortInUseIsReportedWithPostgresqlsOwnErrorAtOnce(@TempDir Path data) throws Exception {
    int port = FreePorts.next();
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", port));
      long t0 = System.nanoTime();
      Process p = start(data, port);
      assertThat(p.waitFor(40, TimeUnit.SECONDS)).as("the command gives up").isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
      assertThat(p.exitValue()).as("exit code; output %s", out).isNotZero();
      assertThat(out).as("PostgreSQL's own words").containsIgnoringCase("address already in use");
      assertThat(seconds).as("seconds until it said so").isLessThan(40);
    }
  }

  @Test
  void sigtermStopsPostgresqlAndTheJvm(@TempDir Path data) throws Exception {
    Process p = start(data, FreePorts.next());
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
        if (line.startsWith("postgres: ready")) {
          break;
        }
      }
      assertThat(lines).as("output").anyMatch(l -> l.startsWith("postgres: ready"));
      p.toHandle().destroy();
      while ((line = out.readLine()) != null) {
        lines.add(line);
      }
    }
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the JVM exits after SIGTERM; output %s", lines).isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(lines).contains("postgres: stopped");
  }

  private static Process start(Path data, int port) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "postgres",
      "--data-dir", data.toString(), "--port", String.valueOf(port))
      .redirectErrorStream(true)
      .start();
  }
}
