package dev.conclave.cli;

/**
 * The client commands' exit codes, documented in docs/cli.md; scripts rely on them, so they never
 * change meaning.
 */
public final class ExitCodes {

  /** Done: the command did what it says (for {@code send}: the agent's answer ended with done). */
  public static final int OK = 0;
  /** The server refused or failed the request (a problem answer), or the agent's task ended in an error. */
  public static final int SERVER_ERROR = 1;
  /** Bad flags or arguments, or a missing or unreadable context, token or CA file. */
  public static final int USAGE = 2;
  /** No node answered at the URL. */
  public static final int CANNOT_CONNECT = 3;
  /** The token was refused (401) or is not allowed this (403). */
  public static final int AUTH = 4;
  /** Interrupted (Ctrl-C): what it started was cancelled. */
  public static final int CANCELLED = 130;

  private ExitCodes() {
  }
}
