package dev.conclave.platform.auth.ssh;

import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.EdECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.RSAKeyGenParameterSpec;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Test agents' SSH keys, made with Java's KeyPairGenerator, and the {@code x-ssh-*} headers a Go
 * (or Rust) coven agent would send with them: the authorized-keys line, and a signature over
 * {@code "<timestamp>|<nonce>"} in Go's {@code ssh.Signature} wire format (SSH string format, SSH
 * string blob), base64. RSA and ECDSA are signed with MINA's signature classes; ed25519 with the
 * JDK's.
 */
final class AgentKeys {

  enum Kind {
    ED25519("ssh-ed25519", "ssh-ed25519"),
    ECDSA_P256("ecdsa-sha2-nistp256", "ecdsa-sha2-nistp256"),
    ECDSA_P384("ecdsa-sha2-nistp384", "ecdsa-sha2-nistp384"),
    ECDSA_P521("ecdsa-sha2-nistp521", "ecdsa-sha2-nistp521"),
    RSA_SHA256("ssh-rsa", "rsa-sha2-256"),
    RSA_SHA512("ssh-rsa", "rsa-sha2-512");

    final String keyType;
    final String signatureFormat;

    Kind(String keyType, String signatureFormat) {
      this.keyType = keyType;
      this.signatureFormat = signatureFormat;
    }
  }

  final Kind kind;
  final KeyPair pair;
  final String comment;
  private int nonces;

  private AgentKeys(Kind kind, KeyPair pair, String comment) {
    this.kind = kind;
    this.pair = pair;
    this.comment = comment;
  }

  static AgentKeys generate(Kind kind, String comment) {
    try {
      KeyPairGenerator generator = switch (kind) {
        case ED25519 -> KeyPairGenerator.getInstance("Ed25519");
        case ECDSA_P256, ECDSA_P384, ECDSA_P521 -> {
          KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
          ec.initialize(new ECGenParameterSpec(switch (kind) {
            case ECDSA_P256 -> "secp256r1";
            case ECDSA_P384 -> "secp384r1";
            default -> "secp521r1";
          }));
          yield ec;
        }
        // RSA key generation takes seconds; one key per kind serves every test of a JVM
        case RSA_SHA256, RSA_SHA512 -> null;
      };
      if (generator == null) {
        return new AgentKeys(kind, RSA_KEYS.computeIfAbsent(kind, k -> rsaKeyPair()), comment);
      }
      return new AgentKeys(kind, generator.generateKeyPair(), comment);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static final Map<Kind, KeyPair> RSA_KEYS = new java.util.concurrent.ConcurrentHashMap<>();

  private static KeyPair rsaKeyPair() {
    try {
      KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
      rsa.initialize(new RSAKeyGenParameterSpec(2048, RSAKeyGenParameterSpec.F4));
      return rsa.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static AgentKeys ed25519(String comment) {
    return generate(Kind.ED25519, comment);
  }

  /** The SSH key blob: string type, then the type's fields. */
  byte[] blob() {
    ByteArrayBuffer buffer = new ByteArrayBuffer();
    if (kind == Kind.ED25519) {
      buffer.putString("ssh-ed25519");
      buffer.putBytes(ed25519Point((EdECPublicKey) pair.getPublic()));
    } else {
      buffer.putRawPublicKey(pair.getPublic());
    }
    return buffer.getCompactData();
  }

  /** The authorized-keys line, as in x-ssh-pubkey. */
  String publicKeyLine() {
    return kind.keyType + " " + Base64.getEncoder().encodeToString(blob()) + (comment == null ? "" : " " + comment);
  }

  String fingerprint() {
    return SshSignatures.fingerprint(blob());
  }

  /** A fresh nonce in coven's shape (32 hex characters). */
  String nonce() {
    byte[] bytes = new byte[16];
    new java.security.SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes).substring(0, 24) + String.format("%08x", ++nonces);
  }

  /** Headers of a call signed now with a fresh nonce. */
  Map<String, String> headers() {
    return headers(Instant.now().getEpochSecond(), nonce());
  }

  Map<String, String> headers(long timestamp, String nonce) {
    return headers(timestamp, nonce, sign((timestamp + "|" + nonce).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  Map<String, String> headers(long timestamp, String nonce, String signature) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("x-ssh-pubkey", publicKeyLine());
    headers.put("x-ssh-signature", signature);
    headers.put("x-ssh-timestamp", Long.toString(timestamp));
    headers.put("x-ssh-nonce", nonce);
    return headers;
  }

  /** base64(string format, string blob): Go's ssh.Marshal(ssh.Signature). */
  String sign(byte[] message) {
    return sign(message, kind.signatureFormat);
  }

  String sign(byte[] message, String format) {
    return Base64.getEncoder().encodeToString(wire(format, rawSignature(message, format)));
  }

  static byte[] wire(String format, byte[] blob) {
    ByteArrayBuffer buffer = new ByteArrayBuffer();
    buffer.putString(format);
    buffer.putBytes(blob);
    return buffer.getCompactData();
  }

  private byte[] rawSignature(byte[] message, String format) {
    try {
      if (kind == Kind.ED25519) {
        java.security.Signature ed = java.security.Signature.getInstance("Ed25519");
        ed.initSign(pair.getPrivate());
        ed.update(message);
        return ed.sign();
      }
      // MINA's signers return the blob: the RSA signature, or ECDSA's (mpint r, mpint s)
      Signature signer = BuiltinSignatures.fromFactoryName(format).create();
      signer.initSigner(null, pair.getPrivate());
      signer.update(null, message);
      return signer.sign(null);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** RFC 8032 encoding of an ed25519 public key: y little-endian, x's parity in the top bit. */
  static byte[] ed25519Point(EdECPublicKey key) {
    BigInteger y = key.getPoint().getY();
    byte[] bigEndian = y.toByteArray();
    byte[] out = new byte[32];
    for (int i = 0; i < 32 && i < bigEndian.length; i++) {
      out[i] = bigEndian[bigEndian.length - 1 - i];
    }
    if (key.getPoint().isXOdd()) {
      out[31] |= (byte) 0x80;
    }
    return out;
  }
}
