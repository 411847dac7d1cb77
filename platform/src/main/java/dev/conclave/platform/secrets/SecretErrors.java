package dev.conclave.platform.secrets;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;

/** Every failure the secrets service reports to callers, defined once. None ever carries a value. */
public final class SecretErrors {

  private SecretErrors() {
  }

  public static ConclaveException nameInvalid() {
    return ConclaveException.invalid("secret_name_invalid", "secret names must match " + SecretRef.NAME.pattern()
      + ": upper-case letters, digits and '_', not starting with a digit, at most 128 characters");
  }

  public static ConclaveException agentIdInvalid(String why) {
    return ConclaveException.invalid("agent_id_invalid", "the agent id " + why);
  }

  public static ConclaveException valueMissing() {
    return ConclaveException.invalid("secret_value_required", "the body must be a JSON object with a string 'value'");
  }

  public static ConclaveException valueTooLarge(int bytes) {
    return ConclaveException.invalid("secret_value_too_large",
      "the value is " + bytes + " bytes in UTF-8; at most " + Secrets.MAX_VALUE_BYTES + " (64 KiB) are allowed");
  }

  public static ConclaveException valueInvalid(String why) {
    return ConclaveException.invalid("secret_value_invalid", "the value " + why);
  }

  public static ConclaveException notFound(SecretRef ref) {
    return ConclaveException.notFound("secret_not_found", "no " + describe(ref));
  }

  public static ConclaveException limitReached(SecretRef ref, int maxCount, int maxBytes) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "secrets_limit_reached",
      (ref.scope() == SecretScope.GLOBAL ? "global secrets" : "secrets of agent '" + ref.agentId() + "'")
        + " are limited to " + maxCount + " names and " + maxBytes + " bytes of names and values together; delete some first");
  }

  /** A stored value that does not decrypt: changed in the database, or written under another key. */
  public static ConclaveException unreadable(SecretRef ref) {
    return new ConclaveException(ErrorKind.INTERNAL, "secret_unreadable",
      describe(ref) + " does not decrypt with this node's key; set it again");
  }

  static String describe(SecretRef ref) {
    return ref.scope() == SecretScope.GLOBAL ? "global secret " + ref.name()
      : "secret " + ref.name() + " of agent '" + ref.agentId() + "'";
  }
}
