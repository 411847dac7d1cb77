package dev.conclave.cli;

/**
 * Why a client command stops: one line for stderr (the server's problem {@code code} in it when
 * there is one) and the exit code ({@link ExitCodes}).
 */
public final class CliFailure extends RuntimeException {

  private final int exitCode;

  public CliFailure(int exitCode, String line) {
    super(line, null, false, false);
    this.exitCode = exitCode;
  }

  public static CliFailure usage(String line) {
    return new CliFailure(ExitCodes.USAGE, line);
  }

  public int exitCode() {
    return exitCode;
  }
}
