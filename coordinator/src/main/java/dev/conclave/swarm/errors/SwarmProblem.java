package dev.conclave.swarm.errors;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import io.vertx.core.json.JsonObject;

/**
 * A swarm failure meant for the caller, with extension members for its problem body (for example
 * {@code field}, {@code heldBy} or {@code retryAfterSeconds}). Created only by {@link SwarmErrors}.
 */
public final class SwarmProblem extends ConclaveException {

  private final JsonObject extensions;

  SwarmProblem(ErrorKind kind, String code, String detail, JsonObject extensions) {
    super(kind, code, detail);
    this.extensions = extensions == null ? new JsonObject() : extensions.copy();
  }

  /** Extra members of the problem body; a copy. */
  public JsonObject extensions() {
    return extensions.copy();
  }

  /** Seconds a rate-limited caller should wait, when this is a rate-limit problem. */
  public int retryAfterSeconds() {
    return extensions.getInteger("retryAfterSeconds", 60);
  }
}
