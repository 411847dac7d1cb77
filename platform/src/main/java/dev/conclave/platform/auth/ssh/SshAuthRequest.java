package dev.conclave.platform.auth.ssh;

import io.vertx.core.MultiMap;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The four {@code x-ssh-*} call headers of coven-gateway's agent authentication, as an agent sends
 * them: its public key (authorized-keys format), the base64 SSH signature over
 * {@code "<timestamp>|<nonce>"}, the timestamp (unix seconds) and the nonce.
 *
 * <p>They are read strictly, more so than coven-gateway: each header comes exactly once (a second
 * {@code x-ssh-pubkey} was ignored, so what was logged or audited need not be what was verified),
 * and the two signed values are taken exactly as sent: the timestamp in decimal digits with no sign,
 * space or leading zero, the nonce with no surrounding space (otherwise {@code +1700000000} or
 * {@code 01700000000} verified with a signature over {@code 1700000000}: one signature, many
 * spellings). The key and the signature, parsed structurally, may carry surrounding space.
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
    String pubkey = required(headers, PUBKEY).trim();
    String signature = required(headers, SIGNATURE).trim();
    String timestamp = required(headers, TIMESTAMP);
    String nonce = required(headers, NONCE);
    long seconds = seconds(timestamp);
    if (nonce.length() > MAX_NONCE_LENGTH || !nonce.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw SshAuthErrors.badNonce(MAX_NONCE_LENGTH);
    }
    return new SshAuthRequest(pubkey, signature, seconds, nonce);
  }

  /** Unix seconds as an agent writes them: 0, or a digit 1-9 and up to 18 more digits (so it fits a long). */
  static long seconds(String timestamp) {
    int n = timestamp.length();
    boolean digits = n >= 1 && n <= 19 && timestamp.chars().allMatch(c -> c >= '0' && c <= '9') && (n == 1 || timestamp.charAt(0) != '0');
    if (!digits) {
      throw SshAuthErrors.badTimestamp(timestamp);
    }
    try {
      return Long.parseLong(timestamp);
    } catch (NumberFormatException e) {
      // 19 digits beyond Long.MAX_VALUE
      throw SshAuthErrors.badTimestamp(timestamp);
    }
  }

  /** The bytes the agent signed: the timestamp in decimal, a bar, the nonce (UTF-8). */
  byte[] signedMessage() {
    return (timestamp + "|" + nonce).getBytes(StandardCharsets.UTF_8);
  }

  /** The header's one value, as sent. */
  private static String required(MultiMap headers, String name) {
    List<String> values = headers.getAll(name);
    if (values.size() > 1) {
      throw SshAuthErrors.repeatedHeader(name, values.size());
    }
    String value = values.isEmpty() ? null : values.get(0);
    if (value == null || value.isBlank()) {
      throw SshAuthErrors.missingHeader(name);
    }
    return value;
  }
}
