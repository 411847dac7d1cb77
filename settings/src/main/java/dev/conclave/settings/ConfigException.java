package dev.conclave.settings;

/** A configuration value that cannot be used. Its message is one line that names the variable. */
public final class ConfigException extends RuntimeException {

  private final String variable;

  public ConfigException(String variable, String problem) {
    super(variable + ": " + problem);
    this.variable = variable;
  }

  public String variable() {
    return variable;
  }
}
