package dev.conclave.packs.builtin;

/**
 * A tool's own failure, such as a missing field or an item that does not exist. Its message goes to
 * the agent verbatim as the tool's error, so it must be short, specific and free of internals.
 */
public final class ToolFailure extends RuntimeException {

  public ToolFailure(String message) {
    super(message, null, false, false);
  }
}
