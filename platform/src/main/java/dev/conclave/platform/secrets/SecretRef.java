package dev.conclave.platform.secrets;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * Which secret: its scope, the agent id for per-agent secrets ({@code ""} for global ones) and its
 * name. The factories validate what a caller sent; the same triple is the ciphertext's associated
 * data, so a stored value only decrypts under the name it was written for.
 */
public record SecretRef(SecretScope scope, String agentId, String name) {

  /** Environment-variable style: upper-case letters, digits and '_', not starting with a digit. */
  public static final Pattern NAME = Pattern.compile("[A-Z_][A-Z0-9_]{0,127}");
  public static final int MAX_AGENT_ID = 200;
  private static final byte[] DOMAIN = "conclave/secret/v1".getBytes(StandardCharsets.UTF_8);

  public SecretRef {
    if ((scope == SecretScope.GLOBAL) != agentId.isEmpty()) {
      throw new IllegalArgumentException("a global secret has no agent id, an agent's secret has one");
    }
  }

  public static SecretRef global(String name) {
    return new SecretRef(SecretScope.GLOBAL, "", checkedName(name));
  }

  public static SecretRef agent(String agentId, String name) {
    return new SecretRef(SecretScope.AGENT, checkedAgentId(agentId), checkedName(name));
  }

  /** Scope, agent id and name, each length-prefixed, so no two refs encode alike. */
  public byte[] associatedData() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : new byte[][] {DOMAIN, utf8(scope.wire()), utf8(agentId), utf8(name)}) {
      out.writeBytes(ByteBuffer.allocate(4).putInt(part.length).array());
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  private static String checkedName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      // the offending name is not echoed: a value pasted into the wrong place must not travel further
      throw SecretErrors.nameInvalid();
    }
    return name;
  }

  private static String checkedAgentId(String agentId) {
    if (agentId == null || agentId.isEmpty()) {
      throw SecretErrors.agentIdInvalid("is required");
    }
    if (agentId.length() > MAX_AGENT_ID) {
      throw SecretErrors.agentIdInvalid("is longer than " + MAX_AGENT_ID + " characters");
    }
    if (agentId.chars().anyMatch(c -> Character.isISOControl(c) || Character.isWhitespace(c))) {
      throw SecretErrors.agentIdInvalid("must not contain whitespace or control characters");
    }
    return agentId;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
