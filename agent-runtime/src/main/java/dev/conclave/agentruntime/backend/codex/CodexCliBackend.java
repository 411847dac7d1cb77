package dev.conclave.agentruntime.backend.codex;

import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.cli.CliBackend;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.cli.StreamMapper;
import dev.conclave.agentruntime.gate.GateMode;

import java.util.ArrayList;
import java.util.List;

/**
 * The Codex CLI non-interactively: {@code codex exec --json [--model M] --sandbox S PROMPT}, or
 * {@code codex exec --json … resume THREAD PROMPT} to continue a thread's conversation, in the
 * agent's working directory. Codex has no approval hook in {@code exec}, so the policy's mode picks
 * its sandbox: {@code read-only} in plan and ask mode, {@code workspace-write} in auto mode. Codex
 * takes no system prompt flag: on a new session the system prompt goes before the prompt.
 */
public final class CodexCliBackend extends CliBackend {

  public CodexCliBackend(BackendContext context, CliSettings settings) {
    super(context, settings);
  }

  @Override
  protected String displayName() {
    return "Codex";
  }

  @Override
  protected List<String> command(String prompt, BackendSession session) {
    List<String> cmd = new ArrayList<>(List.of(settings.executable(), "exec", "--json", "--skip-git-repo-check"));
    settings.model().ifPresent(m -> cmd.addAll(List.of("--model", m)));
    cmd.addAll(List.of("--sandbox", context.gate().mode() == GateMode.AUTO ? "workspace-write" : "read-only"));
    if (session.resumeSessionId().isPresent()) {
      cmd.addAll(List.of("resume", session.resumeSessionId().get(), prompt));
    } else {
      cmd.add(context.systemPrompt().isBlank() ? prompt : context.systemPrompt() + "\n\n" + prompt);
    }
    return cmd;
  }

  @Override
  protected StreamMapper mapper(BackendSession session, BackendCallbacks callbacks) {
    return new CodexEventMapper(session, callbacks, context.gate());
  }
}
