package dev.conclave.gateway.model;

import dev.conclave.gateway.GatewayErrors;

import java.util.regex.Pattern;

/**
 * An agent's multi-dimensional classification in seed 004's dot notation,
 * {@code PrimaryType.Domain.Capability.Role.Lifecycle.Security}, for example
 * {@code Component.Government.CoRT.Supervisor.Persistent.Restricted}. Every one of the six parts is
 * required and is a name: a letter, then letters, digits, {@code _} or {@code -}, at most 64 characters.
 */
public record Classification(String primaryType, String domain, String capability, String role, String lifecycle, String security) {

  static final String[] PARTS = {"PrimaryType", "Domain", "Capability", "Role", "Lifecycle", "Security"};
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,63}");

  /** Parses the dot notation; INVALID_ARGUMENT naming the part that is wrong. */
  public static Classification parse(String text) {
    if (text == null || text.isBlank()) {
      throw GatewayErrors.badClassification("is empty; expected " + String.join(".", PARTS));
    }
    String[] parts = text.split("\\.", -1);
    if (parts.length != PARTS.length) {
      throw GatewayErrors.badClassification("has " + parts.length + " part(s); expected 6: " + String.join(".", PARTS));
    }
    for (int i = 0; i < parts.length; i++) {
      if (!NAME.matcher(parts[i]).matches()) {
        throw GatewayErrors.badClassification("part " + (i + 1) + " (" + PARTS[i] + ") must be a name (a letter, then letters, digits,"
          + " '_' or '-', at most 64 characters), got '" + dev.conclave.platform.validation.TextRules.echo(parts[i]) + "'");
      }
    }
    return new Classification(parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]);
  }

  public String notation() {
    return String.join(".", primaryType, domain, capability, role, lifecycle, security);
  }
}
