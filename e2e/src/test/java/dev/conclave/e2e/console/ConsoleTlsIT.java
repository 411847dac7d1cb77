package dev.conclave.e2e.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestTls;
import dev.conclave.platform.tls.DevCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The console in Chromium over HTTPS from a node jar process whose ports speak TLS only: the page
 * loads from {@code https://localhost}, the login sets the session cookie, and the event-bus bridge
 * (SockJS over a secure WebSocket) goes live. Chromium trusts the throwaway certificate by its public
 * key ({@code --ignore-certificate-errors-spki-list}), which errors on any other certificate.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsoleTlsIT {

  @Test
  void theConsoleAndItsEventBusBridgeWorkOverHttps() throws Exception {
    Path root = Files.createTempDirectory("conclave-console-tls");
    NodeProcess node = null;
    ConsolePage page = null;
    try {
      DevCertificates certs = DevCertificates.generate(root.resolve("tls"), List.of("localhost", "127.0.0.1"));
      Path data = root.resolve("data");
      node = NodeProcess.start(data, Map.of("CONCLAVE_TLS_CERT_FILE", certs.nodeCert().toString(),
          "CONCLAVE_TLS_KEY_FILE", certs.nodeKey().toString()));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!node.logText().contains("ready node=")) {
        assertThat(node.alive()).as("the node runs; log:\n%s", node.logText()).isTrue();
        assertThat(System.nanoTime()).as("ready within 120 s; log:\n%s", node.logText()).isLessThan(deadline);
        Thread.sleep(200);
      }
      String spki = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
          .digest(TestTls.certificates(certs.nodeCert()).get(0).getPublicKey().getEncoded()));
      String url = "https://localhost:" + node.httpPort() + "/";
      page = new ConsolePage("tls", url, List.of("--ignore-certificate-errors-spki-list=" + spki));
      assertThat(page.browser().js("return location.protocol")).isEqualTo("https:");
      page.logIn(Files.readString(data.resolve("admin.token")).trim());
      assertThat(page.connState()).as("the event-bus bridge over wss").isEqualTo("live");
      assertThat(node.logText()).contains("http=https://");
    } finally {
      if (page != null) {
        page.close();
      }
      if (node != null) {
        if (node.alive()) {
          node.terminate(Duration.ofSeconds(30));
        }
        node.close();
      }
      TestDatabase.deleteTree(root);
    }
  }
}
