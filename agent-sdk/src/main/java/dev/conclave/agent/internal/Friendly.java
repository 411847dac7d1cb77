package dev.conclave.agent.internal;

/** Turns a handler's failure into a message fit for the person who sent the request. */
final class Friendly {

  private Friendly() {
  }

  static String message(Throwable failure) {
    String detail = failure == null ? null : failure.getMessage();
    if (detail == null || detail.isBlank()) {
      detail = failure == null ? "unknown failure" : failure.getClass().getSimpleName();
    }
    return "The agent could not complete this request: " + detail;
  }
}
