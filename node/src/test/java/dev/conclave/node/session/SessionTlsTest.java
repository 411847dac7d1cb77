package dev.conclave.node.session;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.testing.TestTls;
import dev.conclave.platform.tls.DevCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code conclave session} against a node whose HTTP port speaks TLS: it connects over {@code https://}
 * trusting the CA that {@code --ca-file} names, and reaches no node it cannot trust, nor a TLS port
 * with {@code http://}. Without {@code --url} it picks {@code https://localhost} when the node's TLS is on.
 */
class SessionTlsTest {

  private static DevCertificates certs;
  private static GatewayFixture gateway;
  private static Path tokenFile;

  @BeforeAll
  static void start() throws Exception {
    certs = TestTls.shared();
    TestNode.Builder builder = TestNode.builder();
    TestTls.nodeEnv(certs).forEach(builder::env);
    gateway = GatewayFixture.start(builder);
    tokenFile = Files.createTempFile("session-tls", ".token");
    Files.writeString(tokenFile, gateway.node().adminToken());
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  @Test
  void itTalksToTheNodeOverHttpsTrustingTheCaItIsGiven() {
    Run run = run("--agent", "no-such-agent", "--url", "https://localhost:" + gateway.node().httpPort(), "--ca-file",
      certs.caCert().toString(), "--token-file", tokenFile.toString());
    assertThat(run.code()).as(run.err()).isEqualTo(SessionCommand.EXIT_CONFIGURE_FAILED);
    assertThat(run.err()).as("the node answered the configure_session").contains("configure_session failed: ");
  }

  @Test
  void aNodeItCannotTrustOrAPlaintextUrlReachesNothing() {
    Run untrusted = run("--agent", "a", "--url", "https://localhost:" + gateway.node().httpPort(), "--token-file", tokenFile.toString());
    assertThat(untrusted.code()).as(untrusted.err()).isEqualTo(SessionCommand.EXIT_NO_NODE);
    assertThat(untrusted.err()).contains("cannot reach");
    Run plaintext = run("--agent", "a", "--url", "http://localhost:" + gateway.node().httpPort(), "--ca-file", certs.caCert().toString(),
      "--token-file", tokenFile.toString());
    assertThat(plaintext.code()).as(plaintext.err()).isEqualTo(SessionCommand.EXIT_NO_NODE);
  }

  @Test
  void theDefaultUrlIsHttpsOnLocalhostWhenTheNodesTlsIsOn() {
    assertThat(dev.conclave.cli.ClientSettings.from(Map.of("CONCLAVE_HTTP_PORT", "18443", "CONCLAVE_TLS_CERT_FILE", "/etc/tls/tls.crt")).localNodeUrl())
      .isEqualTo(URI.create("https://localhost:18443"));
    assertThat(dev.conclave.cli.ClientSettings.from(Map.of("CONCLAVE_HTTP_PORT", "18080")).localNodeUrl()).isEqualTo(URI.create("http://127.0.0.1:18080"));
  }

  private record Run(int code, String err) {
  }

  private static synchronized Run run(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    java.io.InputStream oldIn = System.in;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    System.setIn(new java.io.ByteArrayInputStream(new byte[0]));
    try {
      int code = new picocli.CommandLine(new SessionCommand()).execute(args);
      return new Run(code, err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setErr(old);
      System.setIn(oldIn);
    }
  }
}
