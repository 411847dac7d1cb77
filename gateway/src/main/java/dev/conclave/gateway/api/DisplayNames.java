package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.platform.validation.TextRules;

/** The one check of a principal's display name, wherever one is given (gRPC or HTTP). */
final class DisplayNames {

  private DisplayNames() {
  }

  /** Throws INVALID_ARGUMENT naming {@code field} unless {@code value} is a usable display name. */
  static void check(String field, String value) {
    if (value == null || value.isBlank()) {
      throw GatewayErrors.invalid(field, "must be 1 to " + TextRules.MAX_NAME + " characters");
    }
    TextRules.nameProblem(value, TextRules.MAX_NAME).ifPresent(why -> {
      throw GatewayErrors.invalid(field, why);
    });
  }
}
