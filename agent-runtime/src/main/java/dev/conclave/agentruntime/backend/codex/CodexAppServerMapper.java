package dev.conclave.agentruntime.backend.codex;

import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.FriendlyErrors;
import dev.conclave.agentruntime.backend.cli.CliSettings;
import dev.conclave.agentruntime.backend.cli.CliTools;
import dev.conclave.agentruntime.backend.cli.StreamMapper;
import dev.conclave.agentruntime.gate.GateDecision;
import dev.conclave.agentruntime.gate.GateMode;
import dev.conclave.agentruntime.process.ChildProcess;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One conversation with {@code codex app-server} (protocol v2, JSON-RPC 2.0 without the
 * {@code "jsonrpc"} member, one message per line), as the openai/codex repository describes it in
 * {@code codex-rs/app-server/README.md} and defines it in
 * {@code codex-rs/app-server-protocol/src/protocol/v2/} ({@code thread.rs}, {@code item.rs}):
 *
 * <ol>
 *   <li>{@code initialize} with {@code clientInfo}, then the {@code initialized} notification;</li>
 *   <li>{@code thread/start} ({@code cwd}, {@code approvalPolicy: "untrusted"}, {@code sandbox},
 *       {@code model}, {@code developerInstructions}, {@code config} with the gate's PreToolUse hook) or
 *       {@code thread/resume} ({@code threadId}, the same {@code config});
 *       a resume Codex refuses is a stale session;</li>
 *   <li>{@code turn/start} with the prompt as a {@code text} input, then notifications until
 *       {@code turn/completed}: {@code item/started} and {@code item/completed} with items
 *       {@code agentMessage} (text), {@code reasoning} (thinking), {@code commandExecution},
 *       {@code fileChange}, {@code mcpToolCall}, {@code webSearch} (tools);
 *       {@code thread/tokenUsage/updated} (usage, the {@code last} breakdowns summed over the turn);
 *       {@code error} (unless {@code willRetry});</li>
 *   <li>Codex's requests {@code item/commandExecution/requestApproval} and
 *       {@code item/fileChange/requestApproval} are answered {@code {"decision":"accept"}} or
 *       {@code {"decision":"decline"}} by the tool gate ({@link CliTools#gate}), asking a person when
 *       the policy says so; any other request of Codex's is answered with a JSON-RPC error.</li>
 * </ol>
 *
 * Standard input is closed once the turn completed, which ends the app server.
 */
final class CodexAppServerMapper implements StreamMapper {

  private static final Logger LOG = LoggerFactory.getLogger(CodexAppServerMapper.class);
  private static final int INITIALIZE = 1;
  private static final int THREAD = 2;
  private static final int TURN = 3;
  static final String SHELL = "shell";
  static final String PATCH = "apply_patch";

  private final BackendContext context;
  private final CliSettings settings;
  private final BackendSession session;
  private final BackendCallbacks callbacks;
  private final CliTools tools;
  private final String prompt;
  private final JsonObject hooks;
  private final Map<String, JsonObject> items = new ConcurrentHashMap<>();
  private final StringBuilder text = new StringBuilder();
  private final long[] usage = new long[4];   // input, output, cached input, reasoning output
  private volatile ChildProcess child;
  private volatile String threadId;
  private volatile String error;
  private volatile boolean staleThread;
  private volatile boolean usageSeen;
  private int turns;

  CodexAppServerMapper(BackendContext context, CliSettings settings, BackendSession session, BackendCallbacks callbacks,
                       CliTools tools, String prompt, JsonObject hooks) {
    this.context = context;
    this.settings = settings;
    this.session = session;
    this.callbacks = callbacks;
    this.tools = tools;
    this.prompt = prompt;
    this.hooks = hooks;
  }

  @Override
  public void started(ChildProcess process) {
    this.child = process;
    send(request(INITIALIZE, "initialize", new JsonObject().put("clientInfo", new JsonObject()
      .put("name", "conclave_agent").put("title", "Conclave agent").put("version", "0.1.0"))));
  }

  @Override
  public Future<Void> onEvent(JsonObject m) {
    String method = m.getString("method");
    Object id = m.getValue("id");
    if (method == null && id != null) {
      return response(id, m.getJsonObject("result"), m.getJsonObject("error"));
    }
    JsonObject params = m.getJsonObject("params", new JsonObject());
    if (method != null && id != null) {
      serverRequest(id, method, params);   // answered when decided: the reader goes on meanwhile
      return Future.succeededFuture();
    }
    return method == null ? Future.succeededFuture() : notification(method, params);
  }

  private Future<Void> response(Object id, JsonObject result, JsonObject err) {
    int which = id instanceof Number n ? n.intValue() : -1;
    if (err != null) {
      String message = err.getString("message", "error " + err.getValue("code"));
      if (which == THREAD && session.resumeSessionId().isPresent()) {
        LOG.info("codex refused to resume thread {}: {}", session.resumeSessionId().get(), message);
        staleThread = true;
      } else {
        error = message;
      }
      end();
      return Future.succeededFuture();
    }
    switch (which) {
      case INITIALIZE -> {
        send(new JsonObject().put("method", "initialized"));
        send(request(THREAD, session.resumeSessionId().isPresent() ? "thread/resume" : "thread/start", threadParams()));
      }
      case THREAD -> {
        threadId = result.getJsonObject("thread", new JsonObject()).getString("id", session.resumeSessionId().orElse(null));
        send(request(TURN, "turn/start", new JsonObject().put("threadId", threadId)
          .put("input", new JsonArray().add(new JsonObject().put("type", "text").put("text", prompt)))));
      }
      default -> {
        // turn/start answered: the turn streams as notifications
      }
    }
    return Future.succeededFuture();
  }

  private JsonObject threadParams() {
    JsonObject p = new JsonObject().put("cwd", context.workdir().toString()).put("approvalPolicy", "untrusted")
      .put("sandbox", context.gate().mode() == GateMode.PLAN ? "read-only" : "workspace-write");
    settings.model().ifPresent(model -> p.put("model", model));
    session.resumeSessionId().ifPresent(t -> p.put("threadId", t));
    // the gate's PreToolUse hook, as session config; Codex runs unreviewed hooks only with bypass_hook_trust
    p.put("config", new JsonObject().put("hooks", hooks.copy()).put("bypass_hook_trust", true));
    if (session.resumeSessionId().isEmpty() && !context.systemPrompt().isBlank()) {
      p.put("developerInstructions", context.systemPrompt());
    }
    return p;
  }

  private void serverRequest(Object id, String method, JsonObject params) {
    String itemId = params.getString("itemId", "item");
    String callId = params.getString("approvalId") == null ? itemId : itemId + "/" + params.getString("approvalId");
    Future<GateDecision> decision = switch (method) {
      case "item/commandExecution/requestApproval" -> {
        String command = params.getString("command", items.getOrDefault(itemId, new JsonObject()).getString("command", ""));
        yield tools.gate(callId, SHELL, new JsonObject().put("command", command).encode());
      }
      case "item/fileChange/requestApproval" -> tools.gate(callId, PATCH,
        new JsonObject().put("changes", items.getOrDefault(itemId, new JsonObject()).getJsonArray("changes", new JsonArray())).encode());
      default -> null;
    };
    if (decision == null) {
      LOG.info("codex asked {}, which this agent does not answer", method);
      send(new JsonObject().put("id", id).put("error", new JsonObject().put("code", -32601)
        .put("message", method + " is not supported by the Conclave agent")));
      return;
    }
    decision.onComplete(ar -> send(new JsonObject().put("id", id).put("result", new JsonObject()
      .put("decision", ar.succeeded() && ar.result().allowed() ? "accept" : "decline"))));
  }

  private Future<Void> notification(String method, JsonObject params) {
    switch (method) {
      case "item/started":
        return itemStarted(params.getJsonObject("item", new JsonObject()));
      case "item/completed":
        return itemCompleted(params.getJsonObject("item", new JsonObject()));
      case "thread/tokenUsage/updated": {
        JsonObject last = params.getJsonObject("tokenUsage", new JsonObject()).getJsonObject("last", new JsonObject());
        synchronized (usage) {
          usage[0] += last.getLong("inputTokens", 0L);
          usage[1] += last.getLong("outputTokens", 0L);
          usage[2] += last.getLong("cachedInputTokens", 0L);
          usage[3] += last.getLong("reasoningOutputTokens", 0L);
          usageSeen = true;
        }
        return Future.succeededFuture();
      }
      case "error":
        if (!params.getBoolean("willRetry", false) && error == null) {
          error = params.getJsonObject("error", new JsonObject()).getString("message", "error");
        }
        return Future.succeededFuture();
      case "turn/completed": {
        JsonObject turn = params.getJsonObject("turn", new JsonObject());
        String status = turn.getString("status", "completed");
        if ("failed".equals(status) && error == null) {
          error = turn.getJsonObject("error", new JsonObject()).getString("message", "the turn failed");
        } else if ("completed".equals(status)) {
          turns++;
        }
        end();
        return usageSeen ? reportUsage() : Future.succeededFuture();
      }
      default:
        return Future.succeededFuture();
    }
  }

  private Future<Void> reportUsage() {
    synchronized (usage) {
      return callbacks.usage(new TokenUsage((int) usage[0], (int) usage[1], (int) usage[2], 0, (int) usage[3]));
    }
  }

  private Future<Void> itemStarted(JsonObject item) {
    String id = item.getString("id", "item");
    items.put(id, item);
    return switch (item.getString("type", "")) {
      case "commandExecution" -> tools.announced(id, SHELL, new JsonObject().put("command", item.getString("command", "")).encode());
      case "fileChange" -> tools.announced(id, PATCH, new JsonObject().put("changes", item.getJsonArray("changes", new JsonArray())).encode());
      case "mcpToolCall" -> tools.announced(id, mcpName(item), arguments(item));
      case "webSearch" -> tools.announced(id, "web_search", new JsonObject().put("query", item.getString("query", "")).encode());
      default -> Future.succeededFuture();
    };
  }

  private Future<Void> itemCompleted(JsonObject item) {
    String id = item.getString("id", "item");
    String status = item.getString("status", "completed");
    switch (item.getString("type", "")) {
      case "agentMessage": {
        String t = item.getString("text", "");
        synchronized (text) {
          if (text.length() > 0) {
            text.append("\n\n");
          }
          text.append(t);
        }
        return callbacks.textChunk(t);
      }
      case "reasoning": {
        String t = String.join("\n", strings(item.getJsonArray("summary")), strings(item.getJsonArray("content"))).strip();
        return t.isEmpty() ? Future.succeededFuture() : callbacks.thinking(t);
      }
      case "commandExecution": {
        String input = new JsonObject().put("command", item.getString("command", "")).encode();
        if ("declined".equals(status)) {
          return tools.refusedByCli(id, "Codex declined the command");
        }
        Integer exit = item.getInteger("exitCode");
        return tools.finished(id, SHELL, input, item.getString("aggregatedOutput", ""),
          "failed".equals(status) || (exit != null && exit != 0));
      }
      case "fileChange": {
        String input = new JsonObject().put("changes", item.getJsonArray("changes", new JsonArray())).encode();
        if ("declined".equals(status)) {
          return tools.refusedByCli(id, "Codex declined the patch");
        }
        return tools.finished(id, PATCH, input, status, "failed".equals(status));
      }
      case "mcpToolCall": {
        Object result = item.getValue("result");
        Object err = item.getValue("error");
        String out = err != null ? err.toString() : result == null ? status : result.toString();
        return tools.finished(id, mcpName(item), arguments(item), out, "failed".equals(status));
      }
      case "webSearch":
        return tools.finished(id, "web_search", new JsonObject().put("query", item.getString("query", "")).encode(), "searched", false);
      default:
        return Future.succeededFuture();
    }
  }

  private static String mcpName(JsonObject item) {
    return item.getString("server", "mcp") + "." + item.getString("tool", "tool");
  }

  private static String arguments(JsonObject item) {
    return item.getValue("arguments") instanceof JsonObject a ? a.encode() : "{}";
  }

  private static String strings(JsonArray a) {
    if (a == null) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    for (Object o : a) {
      if (o instanceof String s) {
        b.append(b.length() > 0 ? "\n" : "").append(s);
      }
    }
    return b.toString();
  }

  private static JsonObject request(int id, String method, JsonObject params) {
    return new JsonObject().put("method", method).put("id", id).put("params", params);
  }

  private void send(JsonObject message) {
    ChildProcess c = child;
    if (c != null && !c.writeLine(message.encode())) {
      LOG.debug("codex app-server input closed; dropped {}", message.getString("method", "a response"));
    }
  }

  /** The turn is over (or never started): closing the input ends the app server, killed if it lingers. */
  private void end() {
    ChildProcess c = child;
    if (c != null) {
      c.closeInput();
      context.vertx().setTimer(context.cancelGrace().toMillis() + 1000, t -> c.kill(context.cancelGrace()));
    }
  }

  @Override
  public String stopReason() {
    return tools.stopReason();
  }

  @Override
  public BackendResponse finish(int exitCode, String stderr) {
    if (tools.stopReason() != null) {
      return BackendResponse.error("Codex stopped: " + tools.stopReason() + ".");
    }
    Optional<String> resume = session.resumeSessionId();
    if (staleThread) {
      return BackendResponse.success("", resume.orElseThrow(), 0);   // stale thread: the handler retries fresh
    }
    if (error != null) {
      return BackendResponse.error(FriendlyErrors.cli("Codex", error));
    }
    if (turns == 0) {
      return BackendResponse.error(FriendlyErrors.cli("Codex", "exited with code " + exitCode + " before the turn completed"
        + (stderr.isBlank() ? "" : ": " + stderr)));
    }
    synchronized (text) {
      return new BackendResponse(text.toString(), Optional.ofNullable(threadId), 0, 0, turns, tools.names(), false);
    }
  }
}
