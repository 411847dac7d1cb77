package dev.conclave.settings;

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

  /**
   * A key of exactly {@code bytes} random bytes, in base64 (standard or URL-safe alphabet). The
   * message never echoes the text: it is (nearly) a key.
   */
  public static byte[] base64Key(String variable, String text, int bytes) {
    byte[] key;
    try {
      key = java.util.Base64.getDecoder().decode(text.trim());
    } catch (IllegalArgumentException notStandard) {
      try {
        key = java.util.Base64.getUrlDecoder().decode(text.trim());
      } catch (IllegalArgumentException notUrlSafe) {
        key = null;
      }
    }
    if (key == null || key.length != bytes) {
      throw new ConfigException(variable, "must be the base64 of exactly " + bytes + " random bytes"
        + (key == null ? "" : ", got " + key.length) + " (generate one with: openssl rand -base64 " + bytes + ")");
    }
    return key;
  }

  public static int integer(String variable, String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(variable, "'" + text.trim() + "' is not a whole number");
    }
  }
}
