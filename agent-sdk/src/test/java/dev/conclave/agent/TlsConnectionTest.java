package dev.conclave.agent;

import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link dev.conclave.agent.client.AgentClientBuilder#tls}: the client speaks TLS with the gateway it trusts (by a CA file), checks
 * its host name, presents a client certificate when given one, and never connects to a gateway whose
 * certificate it does not trust. Certificates from openssl, into a temp dir.
 */
class TlsConnectionTest extends ClientTestBase {

  private static Path dir;

  @BeforeAll
  static void certificates() throws Exception {
    dir = Files.createTempDirectory("sdk-tls");
    selfSigned("server", "/CN=localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1");
    selfSigned("other", "/CN=localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1");
    selfSigned("client", "/CN=agent", "extendedKeyUsage=clientAuth");
    selfSigned("elsewhere", "/CN=elsewhere.example", "subjectAltName=DNS:elsewhere.example");
  }

  @Test
  void anAgentRegistersOverTlsWithTheGatewayItTrusts() {
    FakeGateway gateway = tlsGateway(false);
    Session session = Wait.result(client(builder(gateway.endpoint()).tls(GatewayTls.trusting(dir.resolve("server.pem")))).start());
    assertThat(session).isNotNull();
    assertThat(gateway.authorizations()).containsOnly("Bearer " + TOKEN);
  }

  @Test
  void aClientCertificateIsPresentedWhenTheGatewayRequiresOne() {
    FakeGateway gateway = tlsGateway(true);
    started(builder(gateway.endpoint()).tls(GatewayTls.trusting(dir.resolve("server.pem"))
      .withClientCertificate(dir.resolve("client.pem"), dir.resolve("client.key"))));
    assertThat(gateway.connections()).hasSize(1);
  }

  @Test
  void aGatewayWithAnUntrustedCertificateIsNeverReached() {
    FakeGateway gateway = tlsGateway(false);
    client(builder(gateway.endpoint()).tls(GatewayTls.trusting(dir.resolve("other.pem")))).start();
    client(builder(gateway.endpoint()).tls(GatewayTls.systemTrust())).start();
    gateway.expectNoConnection(Duration.ofSeconds(5));
    assertThat(gateway.authorizations()).as("no request reached the gateway").isEmpty();
  }

  @Test
  void aGatewayWhoseCertificateNamesAnotherHostIsNeverReached() {
    FakeGateway gateway = track(FakeGateway.startTls(vertx, "elsewhere", serving("elsewhere")));
    client(builder(gateway.endpoint()).tls(GatewayTls.trusting(dir.resolve("elsewhere.pem")))).start();
    gateway.expectNoConnection(Duration.ofSeconds(5));
    assertThat(gateway.authorizations()).isEmpty();
  }

  @Test
  void aClientWithoutACertificateIsRefusedByAGatewayThatRequiresOne() {
    FakeGateway gateway = tlsGateway(true);
    client(builder(gateway.endpoint()).tls(GatewayTls.trusting(dir.resolve("server.pem")))).start();
    gateway.expectNoConnection(Duration.ofSeconds(5));
    assertThat(gateway.authorizations()).isEmpty();
  }

  private FakeGateway tlsGateway(boolean clientCertificates) {
    HttpServerOptions options = serving("server");
    if (clientCertificates) {
      options.setClientAuth(ClientAuth.REQUIRED).setTrustOptions(new PemTrustOptions().addCertPath(dir.resolve("client.pem").toString()));
    }
    return track(FakeGateway.startTls(vertx, "tls-gw", options));
  }

  private static HttpServerOptions serving(String name) {
    return new HttpServerOptions().setSsl(true).setUseAlpn(true)
      .setKeyCertOptions(new PemKeyCertOptions().setCertPath(dir.resolve(name + ".pem").toString()).setKeyPath(dir.resolve(name + ".key").toString()));
  }

  private static void selfSigned(String name, String subject, String extension) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
      "-keyout", dir.resolve(name + ".key").toString(), "-out", dir.resolve(name + ".pem").toString(), "-days", "2", "-subj", subject,
      "-addext", extension)).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(output).isZero();
  }
}
