package dev.conclave.agentruntime.config;

import dev.conclave.agent.Endpoint;
import dev.conclave.agent.GatewayTls;
import dev.conclave.agentruntime.backend.BackendKind;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.agentruntime.gate.ToolPolicy;
import dev.conclave.agentruntime.process.Executables;
import dev.conclave.settings.Setting;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The agent program's configuration, resolved from {@link SettingValues} and checked: every error
 * names the setting at fault, before anything connects.
 */
public record RuntimeConfig(List<Endpoint> endpoints, String token, String agentId, String name,
                            List<String> capabilities, List<String> workspaces, Path workdir, BackendKind backend,
                            String baseUrl, Optional<String> model, String apiKeyEnv, Optional<String> command,
                            ToolPolicy policy, Duration approvalTimeout, String systemPrompt, int maxToolRounds,
                            Optional<GatewayTls> tls) {

  /** The local node's gRPC address: where a node run with the same environment listens. */
  private static String localNode(SettingValues v) {
    return "localhost:" + v.environment("CONCLAVE_GRPC_PORT").filter(p -> !p.isBlank()).map(String::strip).orElse("50051");
  }

  /** @throws IllegalArgumentException naming the first setting that is missing or wrong */
  public static RuntimeConfig from(SettingValues v, String hostname) {
    List<Endpoint> endpoints = list(v.get(AgentSettings.ENDPOINTS).orElseGet(() -> localNode(v))).stream().map(Endpoint::parse).toList();
    if (endpoints.isEmpty()) {
      throw new IllegalArgumentException("--endpoints names no endpoint");
    }
    String token = v.get(AgentSettings.TOKEN).orElseGet(() -> v.get(AgentSettings.TOKEN_FILE).map(RuntimeConfig::readToken)
      .orElseThrow(() -> new IllegalArgumentException("the agent needs a token: set CONCLAVE_AGENT_TOKEN or --token-file")));
    Path workdir = Path.of(v.get(AgentSettings.WORKDIR).orElse(System.getProperty("user.dir"))).toAbsolutePath().normalize();
    if (!Files.isDirectory(workdir)) {
      throw new IllegalArgumentException("--workdir " + workdir + " is not a directory");
    }
    BackendKind backend = v.require(AgentSettings.BACKEND, "");
    Optional<String> name = v.get(AgentSettings.NAME);
    String agentId = v.get(AgentSettings.AGENT_ID).orElseGet(() -> "agent-" + UUID.nameUUIDFromBytes(
      (hostname + "\n" + name.orElse(backend.cliName()) + "\n" + workdir).getBytes(StandardCharsets.UTF_8)));
    ToolPolicy policy = v.get(AgentSettings.POLICY).map(p -> ToolPolicy.load(Path.of(p))).orElseGet(ToolPolicy::defaults);
    Optional<GateMode> mode = v.get(AgentSettings.MODE);
    if (mode.isPresent()) {
      policy = policy.withMode(mode.get());
    }
    Optional<String> model = v.get(AgentSettings.MODEL);
    if (backend == BackendKind.OPENAI && model.isEmpty()) {
      throw new IllegalArgumentException("--model (or " + AgentSettings.MODEL.name() + ") is required for the openai backend");
    }
    requireExecutables(backend, v.get(AgentSettings.COMMAND), workdir, v.environment("PATH").orElse(""));
    String baseUrl = v.require(AgentSettings.BASE_URL, "");
    return new RuntimeConfig(endpoints, token, agentId, name.orElse(agentId), v.require(AgentSettings.CAPABILITIES, ""),
      v.get(AgentSettings.WORKSPACES).orElse(List.of()), workdir, backend, baseUrl, model,
      v.require(AgentSettings.API_KEY_ENV, ""), v.get(AgentSettings.COMMAND), policy,
      v.require(AgentSettings.APPROVAL_TIMEOUT, ""), v.get(AgentSettings.SYSTEM_PROMPT).orElse(""),
      (int) (long) v.require(AgentSettings.MAX_TOOL_ROUNDS, ""), tls(v));
  }

  /**
   * TLS to the gateway: on with {@code --tls on} or a CA file, trusting that file or else the system's
   * CAs; the files must exist now, so that a typo stops the agent before it connects.
   */
  private static Optional<GatewayTls> tls(SettingValues v) {
    Optional<Path> ca = v.get(AgentSettings.TLS_CA_FILE).map(f -> readable(AgentSettings.TLS_CA_FILE, f));
    Optional<Path> cert = v.get(AgentSettings.TLS_CERT_FILE).map(f -> readable(AgentSettings.TLS_CERT_FILE, f));
    Optional<Path> key = v.get(AgentSettings.TLS_KEY_FILE).map(f -> readable(AgentSettings.TLS_KEY_FILE, f));
    boolean on = v.get(AgentSettings.TLS).orElse(ca.isPresent() || cert.isPresent());
    if (!on) {
      if (ca.isPresent() || cert.isPresent() || key.isPresent()) {
        throw new IllegalArgumentException("--tls is off, but a --tls-* file is set: turn TLS on or remove it");
      }
      return Optional.empty();
    }
    if (cert.isPresent() != key.isPresent()) {
      throw new IllegalArgumentException(cert.isPresent() ? "--tls-cert-file needs --tls-key-file" : "--tls-key-file needs --tls-cert-file");
    }
    GatewayTls tls = ca.map(GatewayTls::trusting).orElseGet(GatewayTls::systemTrust);
    return Optional.of(cert.isPresent() ? tls.withClientCertificate(cert.get(), key.get()) : tls);
  }

  private static Path readable(Setting<String> setting, String file) {
    Path path = Path.of(file);
    if (!Files.isReadable(path)) {
      throw new IllegalArgumentException(setting.flag().map(Setting.Flag::name).orElse(setting.name()) + " " + file
        + ": no such file, or not readable");
    }
    return path;
  }

  /**
   * A CLI backend runs its CLI and, in the CLI's tool hook, curl: both must be there before the agent
   * registers, or it would look healthy and fail every message.
   */
  private static void requireExecutables(BackendKind backend, Optional<String> command, Path workdir, String path) {
    if (backend.executable().isEmpty()) {
      return;
    }
    String flag = AgentSettings.COMMAND.flag().map(Setting.Flag::name).orElseThrow();
    if (command.isPresent()) {
      if (Executables.find(command.get(), workdir, path).isEmpty()) {
        throw new IllegalArgumentException(flag + " " + command.get() + ": not found or not executable");
      }
    } else if (Executables.find(backend.executable().get(), workdir, path).isEmpty()) {
      throw new IllegalArgumentException("--backend " + backend.cliName() + " runs '" + backend.executable().get()
        + "', which is not on the PATH: install " + backend.product().orElseThrow() + ", or point " + flag + " ("
        + AgentSettings.COMMAND.name() + ") at it");
    }
    if (Executables.find("curl", workdir, path).isEmpty()) {
      throw new IllegalArgumentException("--backend " + backend.cliName() + " needs curl (7.76 or newer) on the PATH for the hook "
        + "that asks the tool gate before every tool; it is not on the PATH");
    }
  }

  private static String readToken(String file) {
    try {
      String t = Files.readString(Path.of(file)).strip();
      if (t.isEmpty()) {
        throw new IllegalArgumentException("--token-file " + file + " is empty");
      }
      return t;
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read --token-file " + file + ": " + e.getMessage());
    }
  }

  static List<String> list(String csv) {
    return AgentSettings.list("", csv);
  }

  /** The API key for the openai backend: {@code Welcome.secrets} first, then the environment. */
  public String apiKey(Map<String, String> secrets, Map<String, String> env) {
    String fromSecrets = secrets.get(apiKeyEnv);
    return fromSecrets != null && !fromSecrets.isBlank() ? fromSecrets : env.getOrDefault(apiKeyEnv, "");
  }

  @Override
  public String toString() {
    return "RuntimeConfig[endpoints=" + endpoints + ", agentId=" + agentId + ", name=" + name + ", backend="
      + backend.cliName() + ", workdir=" + workdir + ", mode=" + policy.mode().wireName() + ", tls=" + tls.map(t -> t.caFile()
      .map(ca -> "trusting " + ca).orElse("system trust") + (t.certificateFile().isPresent() ? ", client certificate" : "")).orElse("off")
      + "]";
  }
}
