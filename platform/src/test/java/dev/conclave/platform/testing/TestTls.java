package dev.conclave.platform.testing;

import dev.conclave.platform.tls.DevCertificates;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Certificates for TLS tests, made once per test JVM with {@link DevCertificates} (keytool) in a temp
 * dir, and the JDK TLS contexts that trust or present them.
 */
public final class TestTls {

  private static final TempDirs CERT_DIRS = new TempDirs("conclave-test-tls");


  private static DevCertificates shared;

  private TestTls() {
  }

  /** One set of certificates for the whole JVM: localhost and 127.0.0.1. */
  public static synchronized DevCertificates shared() {
    if (shared == null) {
      shared = fresh();
    }
    return shared;
  }

  /** A set of its own (another CA: what a stranger would present, or a node to renew). */
  public static DevCertificates fresh() {
    try {
      return DevCertificates.generate(CERT_DIRS.create(), List.of("localhost", "127.0.0.1"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The settings of a node serving {@code certs}' node certificate on both ports. */
  public static Map<String, String> nodeEnv(DevCertificates certs) {
    return Map.of("CONCLAVE_TLS_CERT_FILE", certs.nodeCert().toString(), "CONCLAVE_TLS_KEY_FILE", certs.nodeKey().toString());
  }

  /** Vert.x HTTP client options for gRPC over TLS (ALPN h2), trusting {@code ca} and checking the host name. */
  public static io.vertx.core.http.HttpClientOptions grpcClient(Path ca) {
    return new io.vertx.core.http.HttpClientOptions().setSsl(true).setUseAlpn(true).setVerifyHost(true)
      .setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2)
      .setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(ca.toString()));
  }

  /** A TLS context trusting {@code ca} (PEM) and presenting no certificate. */
  public static SSLContext trusting(Path ca) {
    return context(ca, null, null);
  }

  /** A TLS context trusting {@code ca} and presenting {@code cert} with {@code key} (PKCS#8 PEM). */
  public static SSLContext context(Path ca, Path cert, Path key) {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      int i = 0;
      for (Certificate c : certificates(ca)) {
        trust.setCertificateEntry("ca-" + i++, c);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      KeyManagerFactory kmf = null;
      if (cert != null) {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("me", privateKey(key), new char[0], certificates(cert).toArray(Certificate[]::new));
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, new char[0]);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a TLS context from " + ca + ": " + e, e);
    }
  }

  public static List<? extends Certificate> certificates(Path pem) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(pem)) {
      return List.copyOf(CertificateFactory.getInstance("X.509").generateCertificates(in));
    }
  }

  private static PrivateKey privateKey(Path pem) throws IOException, GeneralSecurityException {
    String base64 = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
  }
}
