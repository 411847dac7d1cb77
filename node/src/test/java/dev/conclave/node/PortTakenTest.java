package dev.conclave.node;

import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node whose Hazelcast port another process holds exits at once with one line naming the setting,
 * like a bad value, instead of a stack trace (or staying up unready).
 */
class PortTakenTest {

  @Test
  void aTakenClusterPortExitsTwoWithOneLineNamingTheSetting(@TempDir Path data) throws Exception {
    int clusterPort = FreePorts.next();
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", clusterPort));
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD);
      Map<String, String> env = builder.environment();
      env.putAll(Map.of("CONCLAVE_PG_URL", TestDatabase.freshDatabase().full(), "CONCLAVE_DATA_DIR", data.toString(),
        "CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next()), "CONCLAVE_HTTP_PORT", String.valueOf(FreePorts.next()),
        "CONCLAVE_CLUSTER_MEMBERS", "127.0.0.1:" + clusterPort, "CONCLAVE_CLUSTER_HOST", "127.0.0.1",
        "CONCLAVE_CLUSTER_PORT", String.valueOf(clusterPort), "CONCLAVE_EVENTBUS_PORT", String.valueOf(FreePorts.next()),
        "CONCLAVE_AUTH_SECRET", "port-taken-secret-0123456789abcdef0123", "CONCLAVE_SECRETS_KEY",
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="));
      Process node = builder.start();
      assertThat(node.waitFor(120, TimeUnit.SECONDS)).as("the node exits").isTrue();
      List<String> err = new String(node.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
      assertThat(node.exitValue()).as("exit code; stderr %s", err).isEqualTo(2);
      assertThat(err).as("stderr").contains("configuration error: CONCLAVE_CLUSTER_PORT: port " + clusterPort
        + " on 127.0.0.1 is already in use (another process, or another node on this address): choose a free one");
      assertThat(err).as("no stack trace").noneMatch(line -> line.startsWith("\tat "));
    }
  }
}
