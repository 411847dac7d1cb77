package dev.conclave.swarm.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * The HMAC signature of an HTTP request. The signed text is
 * <pre>timestamp + "\n" + METHOD + "\n" + request-target + "\n" + hex(sha256(body))</pre>
 * where timestamp is the X-Swarm-Timestamp header as sent (ISO-8601), METHOD is upper case, the
 * request-target is the path and query exactly as sent (e.g. {@code /api/v1/messages?agentId=a1}),
 * and the body hash covers the raw body bytes (an empty body hashes the empty string). The signature
 * is lower-case hex of HMAC-SHA256, keyed with the UTF-8 bytes of the agent's secret.
 */
public final class RequestSignature {

  public static final String AGENT_HEADER = "X-Swarm-Agent";
  public static final String TIMESTAMP_HEADER = "X-Swarm-Timestamp";
  public static final String SIGNATURE_HEADER = "X-Swarm-Signature";

  private RequestSignature() {
  }

  public static String canonical(String timestamp, String method, String requestTarget, byte[] body) {
    return timestamp + "\n" + method + "\n" + requestTarget + "\n" + HexFormat.of().formatHex(sha256(body));
  }

  public static String sign(String secret, String canonical) {
    return HexFormat.of().formatHex(AgentSecrets.hmac(secret.getBytes(StandardCharsets.UTF_8), canonical));
  }

  /** Constant-time comparison of two hex signatures. */
  public static boolean matches(String expectedHex, String givenHex) {
    return MessageDigest.isEqual(expectedHex.getBytes(StandardCharsets.US_ASCII), givenHex.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] sha256(byte[] body) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
