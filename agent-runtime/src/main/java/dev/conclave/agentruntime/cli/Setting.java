package dev.conclave.agentruntime.cli;

import java.util.Optional;

/**
 * Every setting of the agent program, in one place: its flag, its environment variable, its key in
 * the config file (the flag's name without dashes), its default and what it means. The command's
 * options, the config file's keys and the README's table are all made from this list.
 */
public enum Setting {
  CONFIG("config", "CONCLAVE_AGENT_CONFIG", null, "FILE",
    "config file (JSON object whose keys are these flags' names, e.g. {\"backend\":\"openai\"})"),
  ENDPOINTS("endpoints", "CONCLAVE_ENDPOINTS", "localhost:50051", "HOST:PORT[,...]",
    "gateway gRPC endpoints; the agent reconnects across them"),
  TOKEN(null, "CONCLAVE_AGENT_TOKEN", null, null,
    "the agent's bearer token (environment only, so it never shows in a process list)"),
  TOKEN_FILE("token-file", "CONCLAVE_AGENT_TOKEN_FILE", null, "FILE",
    "file holding the agent's token (used when CONCLAVE_AGENT_TOKEN is not set)"),
  AGENT_ID("agent-id", "CONCLAVE_AGENT_ID", null, "ID",
    "stable agent id (default: derived from the host, the name and the working directory)"),
  NAME("name", "CONCLAVE_AGENT_NAME", null, "NAME", "display name (default: the agent id)"),
  CAPABILITIES("capabilities", "CONCLAVE_AGENT_CAPABILITIES", "chat", "A,B", "capabilities; they decide which pack tools the agent is offered"),
  WORKSPACES("workspaces", "CONCLAVE_AGENT_WORKSPACES", null, "A,B", "workspace tags clients filter agents by"),
  WORKDIR("workdir", "CONCLAVE_AGENT_WORKDIR", null, "DIR", "working directory (default: the current directory)"),
  BACKEND("backend", "CONCLAVE_AGENT_BACKEND", "echo", "NAME", "echo, claude-cli, codex-cli or openai"),
  BASE_URL("base-url", "CONCLAVE_AGENT_BASE_URL", "https://api.openai.com/v1", "URL", "openai: API root of the Chat Completions server"),
  MODEL("model", "CONCLAVE_AGENT_MODEL", null, "MODEL", "openai: model name (required); CLIs: passed as --model when set"),
  API_KEY_ENV("api-key-env", "CONCLAVE_AGENT_API_KEY_ENV", "OPENAI_API_KEY", "NAME",
    "openai: the variable holding the API key, looked up in Welcome.secrets, then in the environment"),
  COMMAND("command", "CONCLAVE_AGENT_COMMAND", null, "PATH", "claude-cli / codex-cli: the executable (default: claude / codex on the PATH)"),
  POLICY("policy", "CONCLAVE_AGENT_POLICY", null, "FILE", "tool policy file (default: the built-in policy, which asks before writing or executing)"),
  MODE("mode", "CONCLAVE_AGENT_MODE", null, "MODE", "auto, ask or plan; overrides the policy file's mode"),
  APPROVAL_TIMEOUT("approval-timeout", "CONCLAVE_AGENT_APPROVAL_TIMEOUT", "300", "SECONDS",
    "how long an asked tool waits for a decision before it counts as denied"),
  SYSTEM_PROMPT("system-prompt", "CONCLAVE_AGENT_SYSTEM_PROMPT", null, "TEXT", "system prompt (plan mode appends its instruction)"),
  MAX_TOOL_ROUNDS("max-tool-rounds", "CONCLAVE_AGENT_MAX_TOOL_ROUNDS", "20", "N", "openai: model calls one message may take");

  private final String key;
  private final String env;
  private final String defaultValue;
  private final String label;
  private final String description;

  Setting(String key, String env, String defaultValue, String label, String description) {
    this.key = key;
    this.env = env;
    this.defaultValue = defaultValue;
    this.label = label;
    this.description = description;
  }

  /** The flag's name without dashes, and the config file's key; empty for environment-only settings. */
  public Optional<String> key() {
    return Optional.ofNullable(key);
  }

  /** The flag, {@code --key}. */
  public Optional<String> flag() {
    return key().map(k -> "--" + k);
  }

  public String env() {
    return env;
  }

  public Optional<String> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  public String label() {
    return label;
  }

  public String description() {
    return description;
  }
}
