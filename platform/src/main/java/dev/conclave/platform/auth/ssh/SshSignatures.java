package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.errors.ConclaveException;
import org.apache.sshd.common.config.keys.AuthorizedKeyEntry;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.apache.sshd.common.util.buffer.Buffer;
import org.apache.sshd.common.util.buffer.ByteArrayBuffer;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.EdECPoint;
import java.security.spec.EdECPublicKeySpec;
import java.security.spec.NamedParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * Parses agents' OpenSSH public keys and verifies their SSH signatures, in the wire format of Go's
 * {@code ssh.Signature} (what coven agents send): SSH string {@code format}, SSH string {@code blob}.
 *
 * <p>Apache MINA SSHD parses the authorized-keys line and the RSA and ECDSA key blobs and verifies
 * RSA and ECDSA signatures. Ed25519 is verified with the JDK's own Ed25519 (Java 15+): MINA 2.20
 * supports it only through net.i2p's eddsa (unmaintained, CVE-2020-36843) or BouncyCastle, and the
 * JDK needs neither.
 *
 * <p>What is accepted, and why: ed25519 (the only type coven agents use); ECDSA on nistp256/384/521
 * with the hash its curve prescribes; RSA keys of {@value #MIN_RSA_BITS} to {@value #MAX_RSA_BITS}
 * bits signed with rsa-sha2-256 or rsa-sha2-512. {@code ssh-rsa} signatures (SHA-1) are refused: no
 * coven agent produces them (they sign with ed25519 only). Certificates, security-key (sk-) types
 * and DSA are refused.
 */
public final class SshSignatures {

  public static final int MIN_RSA_BITS = 2048;
  public static final int MAX_RSA_BITS = 16384;
  /** As Go's x/crypto/ssh: a larger public exponent would make verification as slow as the caller likes. */
  private static final int MAX_RSA_EXPONENT_BITS = 24;
  private static final int ED25519_KEY_BYTES = 32;
  private static final int ED25519_SIGNATURE_BYTES = 64;
  /** Longer header values are refused before any decoding (a 16384-bit RSA key is about 2.8 KB). */
  static final int MAX_KEY_LINE = 8192;
  static final int MAX_SIGNATURE_TEXT = 4096;

  private static final String ED25519 = "ssh-ed25519";
  private static final String RSA = "ssh-rsa";

  /** Key type → the signature formats accepted for it, and MINA's verifier of each. */
  private static final Map<String, Map<String, BuiltinSignatures>> FORMATS = Map.of(
    ED25519, Map.of(ED25519, BuiltinSignatures.ed25519),
    "ecdsa-sha2-nistp256", Map.of("ecdsa-sha2-nistp256", BuiltinSignatures.nistp256),
    "ecdsa-sha2-nistp384", Map.of("ecdsa-sha2-nistp384", BuiltinSignatures.nistp384),
    "ecdsa-sha2-nistp521", Map.of("ecdsa-sha2-nistp521", BuiltinSignatures.nistp521),
    RSA, Map.of("rsa-sha2-256", BuiltinSignatures.rsaSHA256, "rsa-sha2-512", BuiltinSignatures.rsaSHA512));

  private SshSignatures() {
  }

  /**
   * Parses an authorized-keys line ({@code [options] type base64-blob [comment]}) and checks the key
   * is of an accepted type and size, and canonically encoded (so that its fingerprint is the one Go's
   * {@code ssh.PublicKey.Marshal} gives).
   */
  public static AgentKey parsePublicKey(String line) {
    if (line.length() > MAX_KEY_LINE) {
      throw SshAuthErrors.badPublicKey("longer than " + MAX_KEY_LINE + " characters");
    }
    AuthorizedKeyEntry entry;
    try {
      entry = AuthorizedKeyEntry.parseAuthorizedKeyEntry(line);
    } catch (RuntimeException e) {
      throw SshAuthErrors.badPublicKey(String.valueOf(e.getMessage()));
    }
    if (entry == null) {
      throw SshAuthErrors.badPublicKey("it is empty");
    }
    String type = entry.getKeyType();
    if (!FORMATS.containsKey(type)) {
      throw SshAuthErrors.unsupportedKey("key type '" + type + "' is not accepted");
    }
    byte[] blob = entry.getKeyData();
    PublicKey key;
    try {
      ByteArrayBuffer buffer = new ByteArrayBuffer(blob);
      String blobType = buffer.getString();
      if (!type.equals(blobType)) {
        throw SshAuthErrors.badPublicKey("the line says " + type + " but its key blob holds " + blobType);
      }
      if (ED25519.equals(type)) {
        byte[] point = buffer.getBytes();
        if (point.length != ED25519_KEY_BYTES || buffer.available() != 0) {
          throw SshAuthErrors.badPublicKey("an ssh-ed25519 key blob holds exactly one 32-byte key");
        }
        key = ed25519(point);
      } else {
        key = new ByteArrayBuffer(blob).getRawPublicKey();
        checkSize(key);
        ByteArrayBuffer again = new ByteArrayBuffer();
        again.putRawPublicKey(key);
        if (!Arrays.equals(again.getCompactData(), blob)) {
          throw SshAuthErrors.badPublicKey("the key blob is not canonically encoded");
        }
      }
    } catch (ConclaveException e) {
      throw e;
    } catch (Exception e) {
      throw SshAuthErrors.badPublicKey("the " + type + " key blob cannot be decoded (" + e.getClass().getSimpleName() + ")");
    }
    Optional<String> comment = Optional.ofNullable(entry.getComment()).map(String::trim).filter(c -> !c.isEmpty());
    return new AgentKey(type, key, blob, fingerprint(blob), comment);
  }

  /**
   * Verifies a base64 SSH signature of {@code message} by {@code key}; fails with UNAUTHENTICATED
   * saying whether the signature was malformed, of a refused algorithm, or simply wrong.
   */
  public static void verify(AgentKey key, byte[] message, String signatureBase64) {
    if (signatureBase64.length() > MAX_SIGNATURE_TEXT) {
      throw SshAuthErrors.badSignatureEncoding("longer than " + MAX_SIGNATURE_TEXT + " characters");
    }
    byte[] wire;
    try {
      wire = Base64.getDecoder().decode(signatureBase64);
    } catch (IllegalArgumentException e) {
      throw SshAuthErrors.badSignatureEncoding("not base64 (" + e.getMessage() + ")");
    }
    String format;
    byte[] blob;
    try {
      Buffer buffer = new ByteArrayBuffer(wire);
      format = buffer.getString();
      blob = buffer.getBytes();
      if (buffer.available() != 0) {
        throw SshAuthErrors.badSignatureEncoding(buffer.available() + " bytes follow the signature blob");
      }
    } catch (ConclaveException e) {
      throw e;
    } catch (RuntimeException e) {
      throw SshAuthErrors.badSignatureEncoding("it does not hold two SSH strings");
    }
    Map<String, BuiltinSignatures> accepted = FORMATS.get(key.type());
    BuiltinSignatures verifier = accepted.get(format);
    if (verifier == null) {
      throw SshAuthErrors.refusedAlgorithm(format, key.type(), String.join(" or ", accepted.keySet().stream().sorted().toList()));
    }
    boolean valid;
    try {
      valid = ED25519.equals(key.type()) ? verifyEd25519(key.key(), message, blob) : verifyWithMina(verifier, key.key(), message, wire);
    } catch (Exception e) {
      // a blob that does not even decode (bad ECDSA integers, a wrong length) is a bad signature too
      valid = false;
    }
    if (!valid) {
      throw SshAuthErrors.badSignature();
    }
  }

  /**
   * Loads and initialises the JDK providers and MINA's classes that verification uses (over a second
   * on a cold JVM), so that the first agent's call does not stall an event loop. Call it at start.
   */
  static void warmUp() {
    try {
      // RFC 8032, section 7.1, test 1: a known ed25519 key, the empty message, its signature
      HexFormat hex = HexFormat.of();
      ByteArrayBuffer blob = new ByteArrayBuffer();
      blob.putString(ED25519);
      blob.putBytes(hex.parseHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"));
      AgentKey key = parsePublicKey(ED25519 + " " + Base64.getEncoder().encodeToString(blob.getCompactData()));
      ByteArrayBuffer signature = new ByteArrayBuffer();
      signature.putString(ED25519);
      signature.putBytes(hex.parseHex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"));
      verify(key, new byte[0], Base64.getEncoder().encodeToString(signature.getCompactData()));
      for (String curve : new String[] {"secp256r1", "secp384r1", "secp521r1"}) {
        java.security.KeyPairGenerator ec = java.security.KeyPairGenerator.getInstance("EC");
        ec.initialize(new java.security.spec.ECGenParameterSpec(curve));
        ByteArrayBuffer ecBlob = new ByteArrayBuffer();
        ecBlob.putRawPublicKey(ec.generateKeyPair().getPublic());
        new ByteArrayBuffer(ecBlob.getCompactData()).getRawPublicKey();
      }
      FORMATS.values().forEach(formats -> formats.values().stream().filter(f -> f != BuiltinSignatures.ed25519).forEach(BuiltinSignatures::create));
      KeyFactory.getInstance("RSA");
      for (String algorithm : new String[] {"SHA256withRSA", "SHA512withRSA", "SHA256withECDSA", "SHA384withECDSA", "SHA512withECDSA"}) {
        java.security.Signature.getInstance(algorithm);
      }
    } catch (Exception e) {
      throw new IllegalStateException("SSH signature verification does not work on this JVM: " + e.getMessage(), e);
    }
  }

  /** Lower-case hex of SHA-256 over the key blob. */
  public static String fingerprint(byte[] blob) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(blob));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  private static boolean verifyWithMina(BuiltinSignatures algorithm, PublicKey key, byte[] message, byte[] wire) throws Exception {
    Signature signature = algorithm.create();
    signature.initVerifier(null, key);
    signature.update(null, message);
    // the whole wire form: MINA reads format and blob from it, so no raw blob is ever mistaken for one
    return signature.verify(null, wire);
  }

  private static boolean verifyEd25519(PublicKey key, byte[] message, byte[] blob) throws GeneralSecurityException {
    if (blob.length != ED25519_SIGNATURE_BYTES) {
      return false;
    }
    java.security.Signature signature = java.security.Signature.getInstance("Ed25519");
    signature.initVerify(key);
    signature.update(message);
    return signature.verify(blob);
  }

  /** The JDK key for an ed25519 point in RFC 8032 encoding (y little-endian, the top bit is x's parity). */
  static PublicKey ed25519(byte[] encoded) throws GeneralSecurityException {
    byte[] bigEndian = new byte[encoded.length];
    for (int i = 0; i < encoded.length; i++) {
      bigEndian[i] = encoded[encoded.length - 1 - i];
    }
    boolean xOdd = (bigEndian[0] & 0x80) != 0;
    bigEndian[0] &= 0x7f;
    EdECPoint point = new EdECPoint(xOdd, new BigInteger(1, bigEndian));
    return KeyFactory.getInstance("Ed25519").generatePublic(new EdECPublicKeySpec(NamedParameterSpec.ED25519, point));
  }

  private static void checkSize(PublicKey key) {
    if (key instanceof RSAPublicKey rsa) {
      int bits = rsa.getModulus().bitLength();
      if (bits < MIN_RSA_BITS || bits > MAX_RSA_BITS) {
        throw SshAuthErrors.unsupportedKey("an RSA key of " + bits + " bits is not accepted");
      }
      BigInteger e = rsa.getPublicExponent();
      if (e.bitLength() > MAX_RSA_EXPONENT_BITS || !e.testBit(0) || e.compareTo(BigInteger.valueOf(3)) < 0) {
        throw SshAuthErrors.unsupportedKey("an RSA key whose public exponent is not an odd number from 3 to 2^24 is not accepted");
      }
    } else if (!(key instanceof ECPublicKey)) {
      throw SshAuthErrors.unsupportedKey("a " + key.getAlgorithm() + " key is not accepted");
    }
  }
}
