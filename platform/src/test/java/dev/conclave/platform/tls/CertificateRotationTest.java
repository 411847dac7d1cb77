package dev.conclave.platform.tls;

import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.LogCapture;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.testing.TestTls;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLSocket;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.security.cert.Certificate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rotation without a restart: a renewed certificate and key, written over the files as cert-manager
 * would, reach new connections on both ports within a minute (the files are read every 10 s), while a
 * connection opened before keeps its handshake and goes on being served. Files that do not fit
 * together (a certificate beside another's key) leave the previous certificate in place, with a warning.
 */
class CertificateRotationTest {

  private static final long WITHIN_MS = 60_000;

  @Test
  void aRenewedCertificateReachesNewConnectionsAndOpenOnesGoOn() throws Exception {
    DevCertificates certs = TestTls.fresh();
    TestNode.Builder builder = TestNode.builder().role(new EchoRole());
    TestTls.nodeEnv(certs).forEach(builder::env);
    try (TestNode node = builder.start(); SSLSocket open = handshake(certs, node.httpPort())) {
      Certificate before = TestTls.certificates(certs.nodeCert()).get(0);
      assertThat(get(open)).startsWith("HTTP/1.1 200");
      assertThat(open.getSession().getPeerCertificates()[0]).isEqualTo(before);

      certs.renewNode(List.of("localhost", "127.0.0.1"));
      Certificate after = TestTls.certificates(certs.nodeCert()).get(0);
      assertThat(after).isNotEqualTo(before);
      assertThat(servedWithin(certs, node.httpPort(), after)).as("the HTTP port's new connections").isTrue();
      assertThat(servedWithin(certs, node.grpcPort(), after)).as("the gRPC port's new connections").isTrue();

      assertThat(get(open)).as("the connection opened before the renewal is still served").startsWith("HTTP/1.1 200");
      assertThat(open.getSession().getPeerCertificates()[0]).isEqualTo(before);

      try (LogCapture warnings = LogCapture.warnings()) {
        // a certificate beside a key that is not its own: refused, the renewed one stays
        Files.copy(certs.clientCert(), certs.nodeCert(), StandardCopyOption.REPLACE_EXISTING);
        long deadline = System.currentTimeMillis() + WITHIN_MS;
        while (!warnings.rendered().contains("cannot be used") && System.currentTimeMillis() < deadline) {
          Thread.sleep(200);
        }
        assertThat(warnings.rendered()).contains("files changed but cannot be used, the previous certificate stays: CONCLAVE_TLS_KEY_FILE");
        try (SSLSocket fresh = handshake(certs, node.httpPort())) {
          assertThat(fresh.getSession().getPeerCertificates()[0]).isEqualTo(after);
        }
      }
    }
  }

  /** Whether a new connection to {@code port} presents {@code expected} within a minute. */
  private static boolean servedWithin(DevCertificates certs, int port, Certificate expected) throws Exception {
    long deadline = System.currentTimeMillis() + WITHIN_MS;
    while (System.currentTimeMillis() < deadline) {
      try (SSLSocket socket = handshake(certs, port)) {
        if (socket.getSession().getPeerCertificates()[0].equals(expected)) {
          return true;
        }
      }
      Thread.sleep(500);
    }
    return false;
  }

  private static SSLSocket handshake(DevCertificates certs, int port) throws Exception {
    SSLSocket socket = (SSLSocket) TestTls.trusting(certs.caCert()).getSocketFactory().createSocket("localhost", port);
    socket.setSoTimeout(20_000);
    socket.startHandshake();
    return socket;
  }

  /** One keep-alive request on the connection, and the head of its answer. */
  private static String get(SSLSocket socket) throws Exception {
    OutputStream out = socket.getOutputStream();
    out.write("GET /health/live HTTP/1.1\r\nhost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = socket.getInputStream();
    StringBuilder answer = new StringBuilder();
    byte[] buffer = new byte[4096];
    while (!answer.toString().contains("\r\n\r\n")) {
      int n = in.read(buffer);
      if (n < 0) {
        break;
      }
      answer.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
    }
    // the body of /health/live is short and comes with the head or right after it; read what is there
    Thread.sleep(200);
    while (in.available() > 0) {
      int n = in.read(buffer);
      answer.append(new String(buffer, 0, Math.max(n, 0), StandardCharsets.ISO_8859_1));
    }
    return answer.toString();
  }
}
