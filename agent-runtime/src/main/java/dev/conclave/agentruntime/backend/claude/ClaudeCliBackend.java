package dev.conclave.agentruntime.backend.claude;

import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.cli.CliBackend;
import dev.conclave.agentruntime.backend.cli.CliRun;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.cli.CliTools;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.agentruntime.gate.ToolPolicy;
import io.vertx.core.Future;

import java.io.IOException;
import java.nio.file.Files;
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
 */
public final class ClaudeCliBackend extends CliBackend {

  /** What Claude Code waits for the bridge beyond the approval timeout. */
  private static final Duration BRIDGE_MARGIN = Duration.ofSeconds(60);

  public ClaudeCliBackend(BackendContext context, CliSettings settings) {
    super(context, settings);
  }

  @Override
  protected String displayName() {
    return "Claude Code";
  }

  @Override
  protected Future<CliRun> prepare(String prompt, BackendSession session, BackendCallbacks callbacks) {
    CliTools tools = new CliTools(context.gate(), callbacks);
    return PermissionBridge.start(context.vertx(), tools).compose(bridge -> {
      Path config;
      try {
        config = bridge.writeMcpConfig();
      } catch (IOException e) {
        return bridge.close().transform(x -> Future.failedFuture(e));
      }
      String timeout = Long.toString(context.gate().approvalTimeout().plus(BRIDGE_MARGIN).toMillis());
      return Future.succeededFuture(new CliRun(command(prompt, session, config), Map.of("MCP_TOOL_TIMEOUT", timeout),
        new ClaudeStreamMapper(session, callbacks, tools), false, () -> bridge.close().eventually(() -> delete(config))));
    });
  }

  private static Future<Void> delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a temporary file: the system cleans it up
    }
    return Future.succeededFuture();
  }

  private List<String> command(String prompt, BackendSession session, Path mcpConfig) {
    List<String> cmd = new ArrayList<>(List.of(settings.executable(), "-p", prompt, "--output-format", "stream-json", "--verbose"));
    session.resumeSessionId().ifPresent(id -> cmd.addAll(List.of("--resume", id)));
    settings.model().ifPresent(m -> cmd.addAll(List.of("--model", m)));
    ToolPolicy policy = context.gate().policy();
    cmd.addAll(List.of("--permission-mode", policy.mode() == GateMode.PLAN ? "plan" : "default"));
    cmd.addAll(List.of("--permission-prompt-tool", PermissionBridge.PROMPT_TOOL, "--mcp-config", mcpConfig.toString()));
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
