package dev.conclave.agentruntime.backend.claude;

import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.cli.CliBackend;
import dev.conclave.agentruntime.backend.cli.CliRun;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.cli.CliTools;
import dev.conclave.agentruntime.backend.cli.PermissionBridge;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.agentruntime.gate.ToolPolicy;
import io.vertx.core.Future;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Claude Code CLI in print mode: {@code claude -p PROMPT --output-format stream-json --verbose},
 * with {@code --resume SESSION} to continue a thread's conversation, in the agent's working
 * directory.
 *
 * <p>Every tool Claude Code would ask a person about goes to the tool gate first: each run starts a
 * {@link PermissionBridge} and passes it as {@code --permission-prompt-tool mcp__conclave__approve}
 * with {@code --mcp-config} (a file only this user can read, so the bridge's secret never shows in a
 * process list; deleted when the run ends). Nothing is pre-allowed ({@code --allowedTools} is never passed, nor
 * {@code --dangerously-skip-permissions}); the permission mode is {@code default}, or {@code plan}
 * in plan mode. Deny rules that name a tool exactly also go to {@code --disallowedTools}, and the
 * system prompt (with the plan instruction) to {@code --append-system-prompt}. Claude Code's MCP
 * tool timeout ({@code MCP_TOOL_TIMEOUT}) is set past the approval timeout, so a person has the whole
 * approval timeout to answer.
 *
 * <p>The prompt tool is not asked about every tool: Claude Code runs the tools it deems safe (Read,
 * Glob, Grep, LS in the working directory, read-only Bash commands) without it. So each run also
 * gets {@code --settings FILE} registering a {@code PreToolUse} hook for every tool, which Claude
 * Code runs before any tool call, read-only ones included: a {@code curl} command that asks the
 * same bridge and blocks the call (exit code 2) unless the gate allows it
 * ({@link PermissionBridge#hookSettings}). curl must be on the PATH; the run is refused without it.
 */
public final class ClaudeCliBackend extends CliBackend {

  /** What Claude Code waits for the bridge beyond the approval timeout (MCP tool timeout, hook timeout). */
  private static final Duration BRIDGE_MARGIN = Duration.ofSeconds(60);
  /** What the hook's curl waits beyond the approval timeout: less than the hook's own timeout, so curl fails first and blocks. */
  private static final Duration CURL_MARGIN = Duration.ofSeconds(30);

  public ClaudeCliBackend(BackendContext context, CliSettings settings) {
    super(context, settings);
  }

  @Override
  protected String displayName() {
    return "Claude Code";
  }

  @Override
  protected Future<CliRun> prepare(String prompt, BackendSession session, BackendCallbacks callbacks) {
    if (!PermissionBridge.curlOnPath()) {
      return Future.failedFuture(new IllegalStateException("curl is not on the PATH; claude-cli needs it for the hook that "
        + "asks the tool gate before every tool Claude Code runs"));
    }
    CliTools tools = new CliTools(context.gate(), callbacks);
    Duration approval = context.gate().decisionLimit();
    return PermissionBridge.start(context.vertx(), tools).compose(bridge -> {
      List<Path> files = new ArrayList<>();
      Path mcpConfig;
      Path settingsFile;
      try {
        mcpConfig = add(files, bridge.writeMcpConfig());
        Path curlConfig = add(files, bridge.writeHookCurlConfig(approval.plus(CURL_MARGIN)));
        settingsFile = add(files, PermissionBridge.writeHookSettings(curlConfig, approval.plus(BRIDGE_MARGIN)));
      } catch (IOException | RuntimeException e) {
        return bridge.close().eventually(() -> PermissionBridge.deleteAll(files)).transform(x -> Future.failedFuture(e));
      }
      String timeout = Long.toString(approval.plus(BRIDGE_MARGIN).toMillis());
      return Future.succeededFuture(new CliRun(command(prompt, session, mcpConfig, settingsFile), Map.of("MCP_TOOL_TIMEOUT", timeout),
        new ClaudeStreamMapper(session, callbacks, tools), false, () -> bridge.close().eventually(() -> PermissionBridge.deleteAll(files))));
    });
  }

  private static Path add(List<Path> files, Path file) {
    files.add(file);
    return file;
  }

  private List<String> command(String prompt, BackendSession session, Path mcpConfig, Path settingsFile) {
    List<String> cmd = new ArrayList<>(List.of(settings.executable(), "-p", prompt, "--output-format", "stream-json", "--verbose"));
    session.resumeSessionId().ifPresent(id -> cmd.addAll(List.of("--resume", id)));
    settings.model().ifPresent(m -> cmd.addAll(List.of("--model", m)));
    ToolPolicy policy = context.gate().policy();
    cmd.addAll(List.of("--permission-mode", policy.mode() == GateMode.PLAN ? "plan" : "default"));
    cmd.addAll(List.of("--permission-prompt-tool", PermissionBridge.PROMPT_TOOL, "--mcp-config", mcpConfig.toString()));
    cmd.addAll(List.of("--settings", settingsFile.toString()));
    List<String> denied = policy.deny().stream().filter(r -> r.args().isEmpty() && !r.outsideWorkdir())
      .map(r -> r.toolGlob()).filter(ClaudeCliBackend::isExact).toList();
    if (!denied.isEmpty()) {
      cmd.addAll(List.of("--disallowedTools", String.join(",", denied)));
    }
    if (!context.systemPrompt().isBlank()) {
      cmd.addAll(List.of("--append-system-prompt", context.systemPrompt()));
    }
    return cmd;
  }

  private static boolean isExact(String glob) {
    return !glob.contains("*") && !glob.contains("?");
  }
}
