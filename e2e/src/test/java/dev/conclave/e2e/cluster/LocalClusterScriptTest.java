package dev.conclave.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code deploy/local-cluster.sh} derives every port from one base port (a flag or
 * CONCLAVE_LOCAL_BASE_PORT), so a second cluster, or a machine where the default ports are taken,
 * can move it: every port was fixed before. {@code --print-ports} shows the plan without starting
 * anything; LocalClusterScriptIT starts a node on it.
 */
class LocalClusterScriptTest {

  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final Path SCRIPT = ROOT.resolve("deploy/local-cluster.sh");

  @TempDir
  Path dir;

  record Run(int code, String out, String err) {
  }

  Run run(Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().remove("CONCLAVE_LOCAL_BASE_PORT");
    pb.environment().remove("CONCLAVE_LOCAL_CLUSTER_DIR");
    pb.environment().putAll(env);
    pb.redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the script ends").isTrue();
    return new Run(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
      Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
  }

  @Test
  void everyPortFollowsTheBasePort() throws Exception {
    Run flag = run(Map.of(), "--base-port", "20000", "--print-ports", "3");
    assertThat(flag.code()).as(flag.err()).isZero();
    assertThat(flag.out().lines().toList()).containsExactly(
      "postgres 20000",
      "node-1 grpc=20001 http=20011 hazelcast=20021 eventbus=20031",
      "node-2 grpc=20002 http=20012 hazelcast=20022 eventbus=20032",
      "node-3 grpc=20003 http=20013 hazelcast=20023 eventbus=20033");

    Run env = run(Map.of("CONCLAVE_LOCAL_BASE_PORT", "31000"), "--print-ports", "1");
    assertThat(env.out().lines().toList()).containsExactly("postgres 31000", "node-1 grpc=31001 http=31011 hazelcast=31021 eventbus=31031");
    Run both = run(Map.of("CONCLAVE_LOCAL_BASE_PORT", "31000"), "--base-port=32000", "--print-ports", "1");
    assertThat(both.out().lines().toList()).as("the flag wins").first().isEqualTo("postgres 32000");
  }

  @Test
  void byDefaultNodeOneListensWhereAgentsLookFirst() throws Exception {
    Run plain = run(Map.of(), "--print-ports");
    assertThat(plain.code()).isZero();
    assertThat(plain.out().lines().toList()).hasSize(4).contains("node-1 grpc=50051 http=50061 hazelcast=50071 eventbus=50081");
  }

  @Test
  void aBasePortThatDoesNotFitIsRefused() throws Exception {
    for (String base : List.of("80", "65500", "abc", "")) {
      Run r = run(Map.of(), "--base-port", base, "--print-ports", "2");
      assertThat(r.code()).as(base).isEqualTo(2);
      assertThat(r.err().strip()).as(base).isEqualTo("local-cluster: the base port must be 1024 to 65496 (the cluster uses it and the 39 above it), got '"
        + base + "'");
    }
    Run n = run(Map.of(), "--print-ports", "12");
    assertThat(n.code()).isEqualTo(2);
    assertThat(n.err().strip()).isEqualTo("local-cluster: N must be 1 to 9, got '12'");
  }

  @Test
  void theLauncherPassesTheFlagsOn() throws Exception {
    // ./conclave cluster builds the jar when it is missing or old: --print-ports must answer before that
    ProcessBuilder pb = new ProcessBuilder("bash", ROOT.resolve("conclave").toString(), "cluster", "--base-port", "21000", "--print-ports", "1");
    pb.environment().remove("CONCLAVE_LOCAL_BASE_PORT");
    pb.redirectOutput(dir.resolve("launcher.txt").toFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    assertThat(Files.readAllLines(dir.resolve("launcher.txt"))).containsExactly("postgres 21000",
      "node-1 grpc=21001 http=21011 hazelcast=21021 eventbus=21031");
  }
}
