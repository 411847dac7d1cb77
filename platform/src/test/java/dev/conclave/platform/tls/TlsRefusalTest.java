package dev.conclave.platform.tls;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.testing.TestTls;
import dev.conclave.settings.ConfigException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A node configured for TLS whose certificate is missing or unusable refuses to start, with one line
 * that names the setting at fault; so does one that turns TLS off while naming its files.
 */
class TlsRefusalTest {

  private static final DevCertificates CERTS = TestTls.shared();

  @Test
  void tlsOnWithoutACertificateNamesTheMissingSetting() {
    assertThatThrownBy(() -> EdgeTls.resolve(config("CONCLAVE_TLS", "on")))
      .isInstanceOf(ConfigException.class)
      .hasMessage("CONCLAVE_TLS_CERT_FILE: must be set when CONCLAVE_TLS is on: a node configured for TLS does not start without its "
        + "certificate and key");
    assertThatThrownBy(() -> EdgeTls.resolve(config("CONCLAVE_TLS_CERT_FILE", CERTS.nodeCert().toString())))
      .isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_TLS_KEY_FILE: must be set when CONCLAVE_TLS is on");
  }

  @Test
  void aMissingOrUnreadableFileIsNamed() throws Exception {
    Path nowhere = CERTS.dir().resolve("no-such.pem");
    assertThatThrownBy(() -> EdgeTls.resolve(config("CONCLAVE_TLS_CERT_FILE", nowhere.toString(), "CONCLAVE_TLS_KEY_FILE",
      CERTS.nodeKey().toString()))).isInstanceOf(ConfigException.class).hasMessage("CONCLAVE_TLS_CERT_FILE: " + nowhere + " does not exist");
    Path garbage = Files.writeString(Files.createTempFile("garbage", ".pem"), "not a certificate\n");
    assertThatThrownBy(() -> EdgeTls.resolve(config("CONCLAVE_TLS_CERT_FILE", garbage.toString(), "CONCLAVE_TLS_KEY_FILE",
      CERTS.nodeKey().toString()))).isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_TLS_CERT_FILE: " + garbage + " holds no certificate");
    assertThatThrownBy(() -> EdgeTls.resolve(config("CONCLAVE_TLS_CERT_FILE", CERTS.nodeCert().toString(), "CONCLAVE_TLS_KEY_FILE",
      garbage.toString()))).isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_TLS_KEY_FILE: " + garbage + " holds no private key");
  }

  @Test
  void aKeyThatIsNotTheCertificatesIsRefused() {
    assertThatThrownBy(() -> EdgeTls.resolve(config("CONCLAVE_TLS_CERT_FILE", CERTS.nodeCert().toString(), "CONCLAVE_TLS_KEY_FILE",
      CERTS.clientKey().toString()))).isInstanceOf(ConfigException.class)
      .hasMessage("CONCLAVE_TLS_KEY_FILE: " + CERTS.clientKey() + " is not the private key of the certificate in " + CERTS.nodeCert());
  }

  @Test
  void tlsTurnedOffWhileItsFilesAreNamedIsAMistake() {
    assertThatThrownBy(() -> EdgeTls.resolve(config("CONCLAVE_TLS", "off", "CONCLAVE_TLS_CERT_FILE", CERTS.nodeCert().toString())))
      .isInstanceOf(ConfigException.class).hasMessage("CONCLAVE_TLS: is off, but CONCLAVE_TLS_CERT_FILE is set: turn TLS on or remove it");
  }

  @Test
  void clusterTlsNeedsItsCa() {
    assertThatThrownBy(() -> ClusterTls.resolve(config("CONCLAVE_CLUSTER_MEMBERS", "127.0.0.1:5701",
      "CONCLAVE_AUTH_SECRET", "refusal-test-secret-0123456789abcdef0123",
      "CONCLAVE_CLUSTER_TLS_CERT_FILE", CERTS.clusterCert().toString(), "CONCLAVE_CLUSTER_TLS_KEY_FILE", CERTS.clusterKey().toString())))
      .isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_CLUSTER_TLS_CA_FILE: must be set when CONCLAVE_CLUSTER_TLS is on");
  }

  @Test
  void theNodeStopsBeforeItStartsAnything() {
    assertThatThrownBy(() -> TestNode.builder().env("CONCLAVE_TLS", "on").start())
      .isInstanceOf(ConfigException.class).hasMessageStartingWith("CONCLAVE_TLS_CERT_FILE: must be set when CONCLAVE_TLS is on");
  }

  private static ConclaveConfig config(String... pairs) {
    Map<String, String> env = new HashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return ConclaveConfig.from(env);
  }
}
