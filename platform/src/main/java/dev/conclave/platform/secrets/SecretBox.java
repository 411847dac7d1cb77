package dev.conclave.platform.secrets;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Optional;

/**
 * AES-256-GCM with a random 96-bit nonce per value and caller-supplied associated data. Thread-safe:
 * each call uses its own {@link Cipher}. {@link #open} reports any tampering (ciphertext, tag, nonce
 * or associated data) and a wrong key alike, as an empty result.
 */
public final class SecretBox {

  public static final int KEY_BYTES = 32;
  public static final int NONCE_BYTES = 12;
  public static final int TAG_BYTES = 16;
  private static final String TRANSFORMATION = "AES/GCM/NoPadding";

  /** A value as stored: its nonce, and the ciphertext with GCM's tag appended. */
  public record Sealed(byte[] nonce, byte[] ciphertext) {
  }

  private final SecretKeySpec key;
  private final SecureRandom random = new SecureRandom();

  public SecretBox(byte[] key) {
    if (key.length != KEY_BYTES) {
      throw new IllegalArgumentException("an AES-256 key has " + KEY_BYTES + " bytes, got " + key.length);
    }
    this.key = new SecretKeySpec(key, "AES");
  }

  public Sealed seal(byte[] plaintext, byte[] associatedData) {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    try {
      Cipher cipher = Cipher.getInstance(TRANSFORMATION);
      cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BYTES * 8, nonce));
      cipher.updateAAD(associatedData);
      return new Sealed(nonce, cipher.doFinal(plaintext));
    } catch (GeneralSecurityException e) {
      // AES-GCM is mandatory in every Java runtime; this is a broken JVM, not bad input
      throw new IllegalStateException("AES-GCM encryption failed: " + e.getClass().getSimpleName(), e);
    }
  }

  /** The plaintext, or empty when the value was not sealed by this key with this associated data. */
  public Optional<byte[]> open(Sealed sealed, byte[] associatedData) {
    if (sealed.nonce().length != NONCE_BYTES || sealed.ciphertext().length < TAG_BYTES) {
      return Optional.empty();
    }
    try {
      Cipher cipher = Cipher.getInstance(TRANSFORMATION);
      cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BYTES * 8, sealed.nonce()));
      cipher.updateAAD(associatedData);
      return Optional.of(cipher.doFinal(sealed.ciphertext()));
    } catch (AEADBadTagException e) {
      return Optional.empty();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("AES-GCM decryption failed: " + e.getClass().getSimpleName(), e);
    }
  }
}
