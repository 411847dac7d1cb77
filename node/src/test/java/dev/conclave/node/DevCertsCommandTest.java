package dev.conclave.node;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code conclave-node dev-certs}: two CAs that sign what they should and nothing else, kept across runs. */
class DevCertsCommandTest {

  @Test
  void makesTwoSeparateCasAndKeepsThemOnTheNextRun(@TempDir Path tmp) throws Exception {
    Path dir = tmp.resolve("tls");
    assertThat(new CommandLine(new DevCertsCommand()).execute("--dir", dir.toString(), "--name", "node.example.test")).isZero();
    X509Certificate ca = cert(dir.resolve("ca.pem"));
    X509Certificate clusterCa = cert(dir.resolve("cluster-ca.pem"));
    X509Certificate node = cert(dir.resolve("node.pem"));
    X509Certificate member = cert(dir.resolve("cluster.pem"));
    node.verify(ca.getPublicKey());
    member.verify(clusterCa.getPublicKey());
    assertThatThrownBy(() -> member.verify(ca.getPublicKey())).as("the public CA does not vouch for cluster members").isNotNull();
    assertThat(node.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))))
      .contains("localhost", "127.0.0.1", "node.example.test");
    assertThat(Files.readString(dir.resolve("node.key"))).startsWith("-----BEGIN PRIVATE KEY-----");
    assertThat(Files.getPosixFilePermissions(dir)).hasSize(3);

    byte[] before = Files.readAllBytes(dir.resolve("ca.pem"));
    assertThat(new CommandLine(new DevCertsCommand()).execute("--dir", dir.toString())).isZero();
    assertThat(Files.readAllBytes(dir.resolve("ca.pem"))).as("an existing CA is kept").isEqualTo(before);
  }

  private static X509Certificate cert(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      List<?> all = List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
      return (X509Certificate) all.get(0);
    }
  }
}
