package dev.conclave.agentruntime.backend.claude;

import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.cli.CliBackend;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.cli.StreamMapper;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.agentruntime.gate.ToolPolicy;

import java.util.ArrayList;
import java.util.List;

/**
 * The Claude Code CLI in print mode: {@code claude -p PROMPT --output-format stream-json --verbose},
 * with {@code --resume SESSION} to continue a thread's conversation, in the agent's working
 * directory. The policy becomes Claude Code's own permission settings: plan mode is
 * {@code --permission-mode plan}, auto mode {@code --permission-mode acceptEdits}; read-only and
 * allow-listed tools named exactly go to {@code --allowedTools}, deny-listed ones to
 * {@code --disallowedTools}; the system prompt (with the plan instruction) to
 * {@code --append-system-prompt}.
 */
public final class ClaudeCliBackend extends CliBackend {

  public ClaudeCliBackend(BackendContext context, CliSettings settings) {
    super(context, settings);
  }

  @Override
  protected String displayName() {
    return "Claude Code";
  }

  @Override
  protected List<String> command(String prompt, BackendSession session) {
    List<String> cmd = new ArrayList<>(List.of(settings.executable(), "-p", prompt, "--output-format", "stream-json", "--verbose"));
    session.resumeSessionId().ifPresent(id -> cmd.addAll(List.of("--resume", id)));
    settings.model().ifPresent(m -> cmd.addAll(List.of("--model", m)));
    ToolPolicy policy = context.gate().policy();
    if (policy.mode() == GateMode.PLAN) {
      cmd.addAll(List.of("--permission-mode", "plan"));
    } else if (policy.mode() == GateMode.AUTO) {
      cmd.addAll(List.of("--permission-mode", "acceptEdits"));
    }
    List<String> allowed = new ArrayList<>(exact(policy.readOnly()));
    policy.allow().stream().filter(r -> r.args().isEmpty() && !r.outsideWorkdir()).map(r -> r.toolGlob())
      .filter(ClaudeCliBackend::isExact).forEach(allowed::add);
    if (policy.mode() != GateMode.PLAN && !allowed.isEmpty()) {
      cmd.addAll(List.of("--allowedTools", String.join(",", allowed)));
    }
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

  private static List<String> exact(List<String> globs) {
    return globs.stream().filter(ClaudeCliBackend::isExact).toList();
  }

  private static boolean isExact(String glob) {
    return !glob.contains("*") && !glob.contains("?");
  }

  @Override
  protected StreamMapper mapper(BackendSession session, BackendCallbacks callbacks) {
    return new ClaudeStreamMapper(session, callbacks, context.gate());
  }
}
