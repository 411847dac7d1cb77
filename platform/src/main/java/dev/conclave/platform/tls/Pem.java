package dev.conclave.platform.tls;

import dev.conclave.settings.ConfigException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;

/** Reading the PEM files TLS settings name; every problem is one line naming the setting. */
final class Pem {

  private Pem() {
  }

  /** The file's bytes (blocking: start-up only). */
  static byte[] read(String setting, Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(setting, file + " does not exist");
    } catch (IOException e) {
      throw new ConfigException(setting, "cannot read " + file + " (" + KeyCertificate.oneLine(e) + ")");
    }
  }

  /** The certificates in a PEM file, at least one. */
  static List<X509Certificate> certificates(String setting, String file, byte[] pem) {
    List<X509Certificate> certificates;
    try {
      certificates = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem)).stream()
        .map(X509Certificate.class::cast).toList();
    } catch (CertificateException e) {
      throw new ConfigException(setting, file + " holds no certificate in PEM that can be read (" + KeyCertificate.oneLine(e) + ")");
    }
    if (certificates.isEmpty()) {
      throw new ConfigException(setting, file + " holds no certificate in PEM");
    }
    return certificates;
  }
}
