package dev.conclave.platform.tls;

import dev.conclave.settings.ConfigException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;

import javax.net.ssl.X509KeyManager;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * A certificate chain and its private key, as PEM, checked to be what a TLS handshake needs: a
 * certificate, a key in a form Vert.x reads (PKCS#8, PKCS#1 or SEC 1, as cert-manager and openssl
 * write them), and the key the certificate's own (a renewed certificate read beside the old key would
 * otherwise fail every handshake instead of the reload).
 */
public record KeyCertificate(Buffer certificate, Buffer key, X509Certificate leaf) {

  /**
   * Checks the two files' contents; a problem is a {@link ConfigException} naming the setting at
   * fault ({@code certSetting} or {@code keySetting}).
   */
  public static KeyCertificate check(String certSetting, String certFile, byte[] cert, String keySetting, String keyFile, byte[] key) {
    List<X509Certificate> chain = Pem.certificates(certSetting, certFile, cert);
    PemKeyCertOptions options = new PemKeyCertOptions().setCertValue(Buffer.buffer(cert)).setKeyValue(Buffer.buffer(key));
    String alias;
    X509KeyManager manager;
    try {
      // the values are in memory: no file system, so no Vert.x instance is needed
      alias = options.loadKeyStore(null).aliases().nextElement();
      manager = (X509KeyManager) options.getKeyManagerFactory(null).getKeyManagers()[0];
    } catch (IllegalArgumentException e) {
      // the JDK refuses a key of another algorithm than the certificate's
      throw new ConfigException(keySetting, keyFile + " is not the private key of the certificate in " + certFile);
    } catch (Exception e) {
      throw new ConfigException(keySetting, keyFile + " holds no private key in PEM that can be read (" + oneLine(e) + ")");
    }
    PrivateKey privateKey = manager.getPrivateKey(alias);
    if (!belongs(privateKey, chain.get(0))) {
      throw new ConfigException(keySetting, keyFile + " is not the private key of the certificate in " + certFile);
    }
    return new KeyCertificate(Buffer.buffer(cert), Buffer.buffer(key), chain.get(0));
  }

  /** True when {@code key} signs what the certificate's public key verifies. */
  private static boolean belongs(PrivateKey key, X509Certificate certificate) {
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      case "Ed448" -> "Ed448";
      default -> null;
    };
    if (algorithm == null) {
      return true; // nothing to check it with here; the handshake will
    }
    try {
      byte[] probe = new byte[32];
      new SecureRandom().nextBytes(probe);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  /** Vert.x's key manager options for this pair. */
  public PemKeyCertOptions options() {
    return new PemKeyCertOptions().setCertValue(certificate).setKeyValue(key);
  }

  static String oneLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return message.replaceAll("\\s+", " ").trim();
  }
}
