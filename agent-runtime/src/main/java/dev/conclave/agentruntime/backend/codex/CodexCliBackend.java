package dev.conclave.agentruntime.backend.codex;

import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.cli.CliBackend;
import dev.conclave.agentruntime.backend.cli.CliRun;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.cli.CliTools;
import dev.conclave.agentruntime.backend.cli.PermissionBridge;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 *
 * <p>Under {@code untrusted} Codex still runs the commands it knows to be safe ({@code ls},
 * {@code cat}, {@code grep} …) without asking: {@code render_decision_for_unmatched_command} in
 * {@code codex-rs/core/src/exec_policy.rs} allows them. So each thread also gets a {@code PreToolUse}
 * hook in its session config ({@code thread/start}'s and {@code thread/resume}'s {@code config}
 * overrides, with {@code bypass_hook_trust}, since Codex skips hooks nobody reviewed): Codex runs it
 * for every shell command, patch and MCP tool call before the tool's handler, known-safe commands
 * included ({@code ToolRegistry::dispatch_any} in {@code codex-rs/core/src/tools/registry.rs}). It is
 * the same {@code curl} command as claude-cli's, asking this run's {@link PermissionBridge}; exit code 2
 * blocks the call ({@code codex-rs/hooks/src/events/pre_tool_use.rs}). curl must be on the PATH.
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
    if (!PermissionBridge.curlOnPath()) {
      return Future.failedFuture(new IllegalStateException("curl is not on the PATH; codex-cli needs it for the hook that "
        + "asks the tool gate before every command Codex runs"));
    }
    CliTools tools = new CliTools(context.gate(), callbacks);
    Duration approval = context.gate().decisionLimit();
    return PermissionBridge.start(context.vertx(), tools, CodexCliBackend::toolName).compose(bridge -> {
      List<Path> files = new ArrayList<>();
      JsonObject hooks;
      try {
        Path curlConfig = bridge.writeHookCurlConfig(approval.plus(CURL_MARGIN));
        files.add(curlConfig);
        hooks = hooks(curlConfig, approval.plus(HOOK_MARGIN));
      } catch (IOException | RuntimeException e) {
        return bridge.close().eventually(() -> PermissionBridge.deleteAll(files)).transform(x -> Future.failedFuture(e));
      }
      CodexAppServerMapper mapper = new CodexAppServerMapper(context, settings, session, callbacks, tools, prompt, hooks);
      return Future.succeededFuture(new CliRun(List.of(settings.executable(), "app-server"), Map.of(), mapper, true,
        () -> bridge.close().eventually(() -> PermissionBridge.deleteAll(files))));
    });
  }

  /** What the hook's curl waits beyond the approval timeout: less than the hook's timeout, so curl fails first and blocks. */
  private static final Duration CURL_MARGIN = Duration.ofSeconds(30);
  private static final Duration HOOK_MARGIN = Duration.ofSeconds(60);

  /** The {@code hooks} table of the thread's config: one PreToolUse hook, no matcher (every tool). */
  static JsonObject hooks(Path curlConfig, Duration timeout) {
    JsonObject group = new JsonObject().put("hooks", new JsonArray().add(PermissionBridge.hookCommand(curlConfig, timeout)));
    return new JsonObject().put("PreToolUse", new JsonArray().add(group));
  }

  /** Codex's hook tool names as this runtime names the same tools: Bash is shell, mcp__S__T is S.T. */
  static String toolName(String hookName) {
    if ("Bash".equals(hookName)) {
      return CodexAppServerMapper.SHELL;
    }
    if (hookName.startsWith("mcp__") && hookName.indexOf("__", 5) > 5) {
      int split = hookName.indexOf("__", 5);
      return hookName.substring(5, split) + "." + hookName.substring(split + 2);
    }
    return hookName;
  }
}
