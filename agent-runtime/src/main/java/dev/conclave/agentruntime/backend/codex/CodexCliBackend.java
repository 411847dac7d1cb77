package dev.conclave.agentruntime.backend.codex;

import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.cli.CliBackend;
import dev.conclave.agentruntime.backend.cli.CliRun;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.cli.CliTools;
import io.vertx.core.Future;

import java.util.List;
import java.util.Map;

/**
 * The Codex CLI through {@code codex app-server}: JSON-RPC over the child's standard input and
 * output, one child per run, in the agent's working directory. {@code codex exec} cannot ask anyone
 * before it runs a command ({@code exec} forces the approval policy "never"); the app server can:
 * the thread runs with approval policy {@code untrusted}, and Codex sends an
 * {@code item/commandExecution/requestApproval} or {@code item/fileChange/requestApproval} request
 * before each command or patch it does not consider known-safe, which the tool gate answers
 * ({@link CodexAppServerMapper}).
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
  protected Future<CliRun> prepare(String prompt, BackendSession session, BackendCallbacks callbacks) {
    CliTools tools = new CliTools(context.gate(), callbacks);
    CodexAppServerMapper mapper = new CodexAppServerMapper(context, settings, session, callbacks, tools, prompt);
    return Future.succeededFuture(new CliRun(List.of(settings.executable(), "app-server"), Map.of(), mapper, true,
      Future::succeededFuture));
  }
}
