package dev.conclave.agentruntime.config;

import dev.conclave.agentruntime.backend.BackendKind;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.settings.Parsers;
import dev.conclave.settings.Setting;
import dev.conclave.settings.Setting.Reader;
import dev.conclave.settings.SettingCatalogue;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Every setting of the agent program, in one place, as the shared {@link Setting} type: its flag, its
 * environment variable, its key in the config file (the flag's name without dashes), its default and
 * what it means. The command's options, the config file's keys and agent-runtime/README.md's table
 * are all made from this list. Each parses its own value, naming the flag in its errors
 * ({@code --approval-timeout must be a positive whole number, got 'x'}); {@link SettingValues#of} reads
 * them from the flags, the environment and the file. Checks that need the file system or another
 * setting (a readable file, a backend's executable, TLS files that go together) are
 * {@link RuntimeConfig}'s and {@link SwarmOptions}'.
 */
public final class AgentSettings {

  private AgentSettings() {
  }

  public static final Setting<String> CONFIG = agent("CONCLAVE_AGENT_CONFIG").flag("--config", "FILE")
    .describedAs("config file (JSON object whose keys are these flags' names, e.g. {\"backend\":\"openai\"})").noDefault("");
  public static final Setting<String> ENDPOINTS = option("endpoints", "CONCLAVE_ENDPOINTS", "HOST:PORT[,...]",
    "gateway gRPC endpoints; the agent reconnects across them (default: the local node, localhost:$CONCLAVE_GRPC_PORT, "
      + "or localhost:50051 when that is not set)").noDefault("");
  public static final Setting<String> TOKEN = agent("CONCLAVE_AGENT_TOKEN")
    .describedAs("the agent's bearer token (environment only, so it never shows in a process list)").noDefault("");
  public static final Setting<String> TOKEN_FILE = option("token-file", "CONCLAVE_AGENT_TOKEN_FILE", "FILE",
    "file holding the agent's token (used when CONCLAVE_AGENT_TOKEN is not set)").noDefault("");
  public static final Setting<Boolean> TLS = option("tls", "CONCLAVE_AGENT_TLS", "on/off",
    "connect to the gateway over TLS, trusting the system's CAs unless --tls-ca-file names others (default: on when --tls-ca-file "
      + "is set)",
    AgentSettings::onOff).noDefault("");
  public static final Setting<String> TLS_CA_FILE = option("tls-ca-file", "CONCLAVE_AGENT_TLS_CA_FILE", "FILE",
    "PEM file of the CA certificates the gateway's certificate must chain to; turns TLS on").noDefault("");
  public static final Setting<String> TLS_CERT_FILE = option("tls-cert-file", "CONCLAVE_AGENT_TLS_CERT_FILE", "FILE",
    "PEM client certificate, for a gateway that requires one (CONCLAVE_TLS_CLIENT_CA_FILE)").noDefault("");
  public static final Setting<String> TLS_KEY_FILE = option("tls-key-file", "CONCLAVE_AGENT_TLS_KEY_FILE", "FILE",
    "PEM private key of --tls-cert-file").noDefault("");
  public static final Setting<String> AGENT_ID = option("agent-id", "CONCLAVE_AGENT_ID", "ID",
    "stable agent id (default: derived from the host, the name and the working directory)").noDefault("");
  public static final Setting<String> NAME = option("name", "CONCLAVE_AGENT_NAME", "NAME", "display name (default: the agent id)")
    .noDefault("");
  public static final Setting<List<String>> CAPABILITIES = option("capabilities", "CONCLAVE_AGENT_CAPABILITIES", "A,B",
    "capabilities; they decide which pack tools the agent is offered",
    AgentSettings::list).byDefault("chat");
  public static final Setting<List<String>> WORKSPACES = option("workspaces", "CONCLAVE_AGENT_WORKSPACES", "A,B",
    "workspace tags clients filter agents by",
    AgentSettings::list).noDefault("");
  public static final Setting<String> WORKDIR = option("workdir", "CONCLAVE_AGENT_WORKDIR", "DIR",
    "working directory (default: the current directory)").noDefault("");
  public static final Setting<BackendKind> BACKEND = option("backend", "CONCLAVE_AGENT_BACKEND", "NAME", "echo, claude-cli, codex-cli or openai",
    (flag, text) -> BackendKind.parse(text))
    .byDefault("echo");
  public static final Setting<String> BASE_URL = option("base-url", "CONCLAVE_AGENT_BASE_URL", "URL",
    "openai: API root of the Chat Completions server",
    AgentSettings::httpUrl).byDefault("https://api.openai.com/v1");
  public static final Setting<String> MODEL = option("model", "CONCLAVE_AGENT_MODEL", "MODEL",
    "openai: model name (required); CLIs: passed as --model when set").noDefault("");
  public static final Setting<String> API_KEY_ENV = option("api-key-env", "CONCLAVE_AGENT_API_KEY_ENV", "NAME",
    "openai: the variable holding the API key, looked up in Welcome.secrets, then in the environment").byDefault("OPENAI_API_KEY");
  public static final Setting<String> COMMAND = option("command", "CONCLAVE_AGENT_COMMAND", "PATH",
    "claude-cli / codex-cli: the executable (default: claude / codex on the PATH)").noDefault("");
  public static final Setting<String> POLICY = option("policy", "CONCLAVE_AGENT_POLICY", "FILE",
    "tool policy file (default: the built-in policy, which asks before writing or executing)").noDefault("");
  public static final Setting<GateMode> MODE = option("mode", "CONCLAVE_AGENT_MODE", "MODE",
    "auto, ask or plan; overrides the policy file's mode",
    (flag, text) -> GateMode.parse(text)).noDefault("");
  public static final Setting<Duration> APPROVAL_TIMEOUT = option("approval-timeout", "CONCLAVE_AGENT_APPROVAL_TIMEOUT", "SECONDS",
    "how long an asked tool waits for a decision before it counts as denied",
    (flag, text) -> Duration.ofSeconds(positive(flag, text))).byDefault("300");
  public static final Setting<String> SYSTEM_PROMPT = option("system-prompt", "CONCLAVE_AGENT_SYSTEM_PROMPT", "TEXT",
    "system prompt (plan mode appends its instruction)").noDefault("");
  public static final Setting<Long> MAX_TOOL_ROUNDS = option("max-tool-rounds", "CONCLAVE_AGENT_MAX_TOOL_ROUNDS", "N",
    "openai: model calls one message may take",
    AgentSettings::positive).byDefault("20");
  public static final Setting<Boolean> SWARM = option("swarm", "CONCLAVE_AGENT_SWARM", "[true/false]",
    "also work the swarm's tasks, each as a conversation swarm:<taskId> (docs/swarm-agents.md); the flag alone means true",
    AgentSettings::trueOrFalse)
    .byDefault("false");
  public static final Setting<URI> SWARM_URL = option("swarm-url", "CONCLAVE_AGENT_SWARM_URL", "URL",
    "swarm: the coordinator's HTTP address (default: the node the agent connected to, as its Welcome announces it)",
    AgentSettings::swarmUrl).noDefault("");
  public static final Setting<List<String>> SKILLS = option("skills", "CONCLAVE_AGENT_SKILLS", "A,B",
    "swarm: the skills registered with the coordinator; a task is claimed only when they cover its required skills",
    AgentSettings::list).noDefault("");
  public static final Setting<Long> MAX_TASK_MINUTES = option("max-task-minutes", "CONCLAVE_AGENT_MAX_TASK_MINUTES", "N",
    "swarm: a task still unfinished this long after its claim fails as task_timeout",
    AgentSettings::upToAMillion).byDefault("60");
  public static final Setting<String> QUALITY_COMMAND = option("quality-command", "CONCLAVE_AGENT_QUALITY_COMMAND", "CMD",
    "swarm: shell command run in the working directory before COMPLETE; its exit code is buildSuccess, its test counts are read when it prints them")
    .noDefault("");
  public static final Setting<Duration> CLAIM_WAIT = option("claim-wait", "CONCLAVE_AGENT_CLAIM_WAIT", "SECONDS",
    "swarm: the longest wait between claims while no task is eligible (waits start at 1 s and double, with jitter)",
    (flag, text) -> Duration.ofSeconds(upToAMillion(flag, text))).byDefault("30");
  public static final Setting<Duration> LEASE_WAIT = option("lease-wait", "CONCLAVE_AGENT_LEASE_WAIT", "SECONDS",
    "swarm: how long a tool waits for a file another agent holds before it fails",
    (flag, text) -> Duration.ofSeconds(upToAMillion(flag, text))).byDefault("120");

  /** Every setting, in the order of the README's table and of the command's options. */
  public static List<Setting<?>> all() {
    return SettingCatalogue.declaredIn(AgentSettings.class);
  }

  /** A setting of the agent program, read as text. */
  private static Setting.Builder<String> agent(String env) {
    return Setting.define(env, Parsers.TEXT).readBy(Reader.AGENT);
  }

  /** A setting that is a flag {@code --key}, the environment variable {@code env} and the config file's {@code key}; text. */
  private static Setting.Builder<String> option(String key, String env, String label, String description) {
    return agent(env).flag("--" + key, label).fileKey(key).describedAs(description);
  }

  /** The same, its value parsed by {@code parser}, whose errors name the flag. */
  private static <T> Setting.Builder<T> option(String key, String env, String label, String description, FlagParser<T> parser) {
    String flag = "--" + key;
    return Setting.<T>define(env, (variable, text) -> parser.parse(flag, text)).readBy(Reader.AGENT)
      .flag(flag, label).fileKey(key).describedAs(description);
  }

  /** Parses a value given by flag, variable or file; its error names the flag (the agent program's users type flags). */
  @FunctionalInterface
  private interface FlagParser<T> {
    T parse(String flag, String text);
  }

  /** A comma-separated list; blanks between commas are dropped. */
  static List<String> list(String flag, String csv) {
    return Arrays.stream(csv.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }

  private static long positive(String flag, String text) {
    try {
      long n = Long.parseLong(text);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(flag + " must be a positive whole number, got '" + text + "'");
  }

  private static long upToAMillion(String flag, String text) {
    try {
      long n = Long.parseLong(text);
      if (n > 0 && n <= 1_000_000) {
        return n;
      }
    } catch (NumberFormatException ignored) {
      // reported below
    }
    throw new IllegalArgumentException(flag + " must be a whole number from 1 to 1000000, got '" + text + "'");
  }

  private static boolean onOff(String flag, String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "on", "true", "yes", "1" -> true;
      case "off", "false", "no", "0" -> false;
      default -> throw new IllegalArgumentException(flag + " must be on or off, got '" + text + "'");
    };
  }

  private static boolean trueOrFalse(String flag, String text) {
    String on = text.toLowerCase(Locale.ROOT);
    if (!on.equals("true") && !on.equals("false")) {
      throw new IllegalArgumentException(flag + " must be true or false, got '" + on + "'");
    }
    return on.equals("true");
  }

  private static String httpUrl(String flag, String text) {
    if (!text.startsWith("http://") && !text.startsWith("https://")) {
      throw new IllegalArgumentException(flag + " must start with http:// or https://, got '" + text + "'");
    }
    return text;
  }

  private static URI swarmUrl(String flag, String text) {
    try {
      URI uri = new URI(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        throw new IllegalArgumentException(flag + " must be an http:// or https:// address, got '" + text + "'");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(flag + " is not an address: " + e.getMessage());
    }
  }

  /**
   * This type's settings for the catalogue of every module's settings, found through ServiceLoader
   * ({@code META-INF/services/dev.conclave.settings.SettingCatalogue}): every module registers its
   * one settings type this way.
   */
  public static final class Catalogue implements SettingCatalogue {

    @Override
    public List<Setting<?>> settings() {
      return SettingCatalogue.declaredIn(AgentSettings.class);
    }

    @Override
    public String documentedIn() {
      return "agent-runtime/README.md";
    }
  }
}
