package dev.conclave.agent.pack;

/**
 * A tool call that failed in a way the agent should hear about: its message becomes the call's
 * {@code error} verbatim (for example {@code "unknown city: Atlantis"}). Fail a handler's future with
 * it, or throw it from the handler.
 */
public class PackToolException extends RuntimeException {

  public PackToolException(String message) {
    super(message);
  }

  public PackToolException(String message, Throwable cause) {
    super(message, cause);
  }
}
