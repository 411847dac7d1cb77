package dev.conclave.platform.auth.ssh;

import io.vertx.core.MultiMap;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The four {@code x-ssh-*} call headers of coven-gateway's agent authentication, as an agent sends
 * them: its public key (authorized-keys format), the base64 SSH signature over
 * {@code "<timestamp>|<nonce>"}, the timestamp (unix seconds) and the nonce. Values are trimmed, and
 * the first value of a repeated header counts, as in coven-gateway.
 */
public record SshAuthRequest(String pubkey, String signature, long timestamp, String nonce) {

  public static final String PUBKEY = "x-ssh-pubkey";
  public static final String SIGNATURE = "x-ssh-signature";
  public static final String TIMESTAMP = "x-ssh-timestamp";
  public static final String NONCE = "x-ssh-nonce";
  static final List<String> ALL = List.of(PUBKEY, SIGNATURE, TIMESTAMP, NONCE);

  /** coven agents send 32 hex characters; the limit only keeps rows and messages small. */
  static final int MAX_NONCE_LENGTH = 128;

  /** True when any of the headers is there: the call means to authenticate this way. */
  static boolean present(MultiMap headers) {
    return ALL.stream().anyMatch(headers::contains);
  }

  /** Reads the headers; fails with UNAUTHENTICATED naming the first one missing or malformed. */
  static SshAuthRequest from(MultiMap headers) {
    String pubkey = required(headers, PUBKEY);
    String signature = required(headers, SIGNATURE);
    String timestamp = required(headers, TIMESTAMP);
    String nonce = required(headers, NONCE);
    long seconds;
    try {
      seconds = Long.parseLong(timestamp);
    } catch (NumberFormatException e) {
      throw SshAuthErrors.badTimestamp(timestamp);
    }
    if (nonce.length() > MAX_NONCE_LENGTH || !nonce.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw SshAuthErrors.badNonce(MAX_NONCE_LENGTH);
    }
    return new SshAuthRequest(pubkey, signature, seconds, nonce);
  }

  /** The bytes the agent signed: the timestamp in decimal, a bar, the nonce (UTF-8). */
  byte[] signedMessage() {
    return (timestamp + "|" + nonce).getBytes(StandardCharsets.UTF_8);
  }

  private static String required(MultiMap headers, String name) {
    String value = headers.get(name);
    if (value == null || value.isBlank()) {
      throw SshAuthErrors.missingHeader(name);
    }
    return value.trim();
  }
}
