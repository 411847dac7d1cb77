package dev.conclave.swarm.security;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Per-agent HMAC secrets, derived rather than stored: secret = base64url(HMAC-SHA256(K, agentId + "\n" +
 * salt)), with K = SHA-256("conclave-swarm-agent-secret\n" + the node's token signing secret). The
 * database keeps only the salt, so a copy of it does not reveal any secret; every node of a cluster
 * shares the signing secret and so derives the same secrets. A new REGISTER draws a new salt, which
 * replaces the agent's secret.
 */
public final class AgentSecrets {

  private static final SecureRandom RANDOM = new SecureRandom();
  private final byte[] key;

  private AgentSecrets(byte[] key) {
    this.key = key;
  }

  public static AgentSecrets fromSigningSecret(String signingSecret) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return new AgentSecrets(sha.digest(("conclave-swarm-agent-secret\n" + signingSecret).getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  public String newSalt() {
    byte[] salt = new byte[18];
    RANDOM.nextBytes(salt);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(salt);
  }

  public String secretFor(String agentId, String salt) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(hmac(key, agentId + "\n" + salt));
  }

  static byte[] hmac(byte[] key, String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }
}
