package dev.conclave.platform.tls;

import dev.conclave.settings.ConfigException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/** What one TLS setup's files held when they were read, checked: the key pair, and the trusted CAs if any. */
public record TlsMaterial(KeyCertificate keyCertificate, Optional<Buffer> ca) {

  /** Checks the files' contents; a problem is a {@link ConfigException} naming the setting at fault. */
  static TlsMaterial check(TlsFiles files, byte[] cert, byte[] key, Optional<byte[]> ca) {
    KeyCertificate pair = KeyCertificate.check(files.certificate().setting(), files.certificate().file().toString(), cert,
      files.key().setting(), files.key().file().toString(), key);
    ca.ifPresent(pem -> {
      TlsFiles.Named named = files.ca().orElseThrow();
      Pem.certificates(named.setting(), named.file().toString(), pem);
    });
    return new TlsMaterial(pair, ca.map(Buffer::buffer));
  }

  static TlsMaterial check(TlsFiles files, List<Buffer> contents) {
    return check(files, contents.get(0).getBytes(), contents.get(1).getBytes(),
      contents.size() > 2 ? Optional.of(contents.get(2).getBytes()) : Optional.empty());
  }

  public PemKeyCertOptions keyCert() {
    return keyCertificate.options();
  }

  /** The CAs a peer's certificate must chain to, when this setup names them. */
  public Optional<PemTrustOptions> trust() {
    return ca.map(pem -> new PemTrustOptions().addCertValue(pem));
  }

  /** For logs: the certificate's subject, expiry and SHA-256 fingerprint (as {@code openssl x509 -fingerprint -sha256} prints it, without colons). */
  public String describe() {
    var leaf = keyCertificate.leaf();
    return "subject=\"" + leaf.getSubjectX500Principal().getName() + "\" not-after=" + leaf.getNotAfter().toInstant()
      + " sha256=" + fingerprint();
  }

  public String fingerprint() {
    try {
      return HexFormat.of().withUpperCase().formatHex(MessageDigest.getInstance("SHA-256").digest(keyCertificate.leaf().getEncoded()));
    } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
      throw new IllegalStateException(e);
    }
  }
}
