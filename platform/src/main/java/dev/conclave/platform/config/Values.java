package dev.conclave.platform.config;

/** Parsers for single configuration values; each failure names the variable. */
public final class Values {

  private Values() {
  }

  /** A TCP port; {@code 0} (any free port) only where {@code allowEphemeral}. */
  public static int port(String variable, String text, boolean allowEphemeral) {
    int port = integer(variable, text);
    int min = allowEphemeral ? 0 : 1;
    if (port < min || port > 65535) {
      throw new ConfigException(variable, "'" + text.trim() + "' is not a port (" + min + " to 65535)");
    }
    return port;
  }

  public static int positive(String variable, String text) {
    int value = integer(variable, text);
    if (value <= 0) {
      throw new ConfigException(variable, "must be a positive whole number, got '" + text.trim() + "'");
    }
    return value;
  }

  public static int integer(String variable, String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(variable, "'" + text.trim() + "' is not a whole number");
    }
  }
}
