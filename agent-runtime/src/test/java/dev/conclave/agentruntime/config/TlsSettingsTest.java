package dev.conclave.agentruntime.config;

import dev.conclave.agent.GatewayTls;
import dev.conclave.settings.Setting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The agent program's TLS settings: a CA file turns TLS on and is what it trusts; {@code --tls on}
 * alone trusts the system's CAs; a client certificate comes with its key; a file that is not there,
 * or TLS off beside a TLS file, stops the start with one line naming the flag.
 */
class TlsSettingsTest {

  @TempDir
  Path dir;

  private RuntimeConfig config(Map<Setting<?>, String> more) {
    Map<Setting<?>, String> flags = new HashMap<>(more);
    flags.put(AgentSettings.WORKDIR, dir.toString());
    return RuntimeConfig.from(SettingValues.of(flags, Map.of("CONCLAVE_AGENT_TOKEN", "t")), "h");
  }

  private Path file(String name) throws IOException {
    return Files.writeString(dir.resolve(name), "-----BEGIN CERTIFICATE-----\n");
  }

  @Test
  void plaintextUnlessAskedForTls() {
    assertThat(config(Map.of()).tls()).isEmpty();
  }

  @Test
  void aCaFileTurnsTlsOnAndIsWhatItTrusts() throws IOException {
    Path ca = file("ca.pem");
    assertThat(config(Map.of(AgentSettings.TLS_CA_FILE, ca.toString())).tls()).contains(GatewayTls.trusting(ca));
  }

  @Test
  void tlsOnAloneTrustsTheSystemsCas() {
    assertThat(config(Map.of(AgentSettings.TLS, "on")).tls()).contains(GatewayTls.systemTrust());
  }

  @Test
  void aClientCertificateComesWithItsKey() throws IOException {
    Path ca = file("ca.pem");
    Path cert = file("me.pem");
    Path key = file("me.key");
    assertThat(config(Map.of(AgentSettings.TLS_CA_FILE, ca.toString(), AgentSettings.TLS_CERT_FILE, cert.toString(),
      AgentSettings.TLS_KEY_FILE, key.toString())).tls())
      .contains(GatewayTls.trusting(ca).withClientCertificate(cert, key));
    assertThatThrownBy(() -> config(Map.of(AgentSettings.TLS_CERT_FILE, cert.toString())))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--tls-cert-file needs --tls-key-file");
  }

  @Test
  void aMissingFileOrAContradictionStopsTheStart() throws IOException {
    assertThatThrownBy(() -> config(Map.of(AgentSettings.TLS_CA_FILE, dir.resolve("nope.pem").toString())))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--tls-ca-file " + dir.resolve("nope.pem") + ": no such file, or not readable");
    Path ca = file("ca.pem");
    assertThatThrownBy(() -> config(Map.of(AgentSettings.TLS, "off", AgentSettings.TLS_CA_FILE, ca.toString())))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--tls is off, but a --tls-* file is set: turn TLS on or remove it");
    assertThatThrownBy(() -> config(Map.of(AgentSettings.TLS, "maybe")))
      .isInstanceOf(IllegalArgumentException.class).hasMessage("--tls must be on or off, got 'maybe'");
  }
}
