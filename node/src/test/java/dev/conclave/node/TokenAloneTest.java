package dev.conclave.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code token} with no node on the data dir starts the dir's PostgreSQL itself, beside its own
 * Vert.x (issue 45): it issues the token, stops PostgreSQL before it exits, and a PostgreSQL that
 * cannot start fails the command with PostgreSQL's message.
 */
class TokenAloneTest {

  @Test
  void aTokenWithNoNodeRunningStartsAndStopsTheDataDirsPostgresql(@TempDir Path data) throws Exception {
    Result result = token(data);
    assertThat(result.exit()).as("exit code; stderr %s", result.err()).isZero();
    assertThat(result.out().trim().split("\\.")).as("a signed token on stdout: %s", result.out()).hasSize(3);
    assertThat(result.err()).contains("token: starting the embedded PostgreSQL of");
    assertThat(data.resolve("pg").resolve("postmaster.pid")).as("PostgreSQL stopped with the command").doesNotExist();
  }

  @Test
  void aPostgresqlThatCannotStartFailsTheCommandWithItsMessage(@TempDir Path data) throws Exception {
    // where the cluster's directory should be, a file: PostgreSQL cannot start there
    Files.writeString(data.resolve("pg"), "not a directory");
    Result result = token(data);
    assertThat(result.exit()).as("exit code; stderr %s", result.err()).isNotZero();
    assertThat(result.err()).contains("embedded PostgreSQL did not start in " + data.resolve("pg"));
    assertThat(result.out()).as("no token").isEmpty();
  }

  private record Result(int exit, String out, String err) {
  }

  private static Result token(Path data) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
      "token", "--new-client", "alone"));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    pb.environment().put("CONCLAVE_DATA_DIR", data.toString());
    Path err = Files.createTempFile("token-alone", ".err");
    pb.redirectError(err.toFile());
    Process token = pb.start();
    String out = new String(token.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(token.waitFor(180, TimeUnit.SECONDS)).as("the command ended").isTrue();
    String said = Files.readString(err);
    Files.delete(err);
    return new Result(token.exitValue(), out, said);
  }
}
