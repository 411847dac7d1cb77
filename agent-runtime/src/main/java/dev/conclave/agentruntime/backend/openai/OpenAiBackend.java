package dev.conclave.agentruntime.backend.openai;

import dev.conclave.agent.PackToolInfo;
import dev.conclave.agent.PackToolResult;
import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.FriendlyErrors;
import dev.conclave.agentruntime.gate.ToolOutcome;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A backend on any OpenAI-compatible Chat Completions server, streaming (SSE). One message may take
 * several model calls: while the model answers with tool calls, each call passes the tool gate,
 * runs as a pack tool ({@code ExecutePackTool}) and its output (or why it did not run) goes back
 * to the model. Context injected meanwhile joins the conversation before the next model call.
 *
 * <p>The server keeps no state, so the runtime keeps each conversation's messages under a session
 * id it makes up ({@link Conversations}); the SDK offers that id back on the thread's next message.
 */
public final class OpenAiBackend implements AgentBackend {

  private static final Logger LOG = LoggerFactory.getLogger(OpenAiBackend.class);

  private final BackendContext context;
  private final OpenAiSettings settings;
  private final ChatCompletions api;
  private final Conversations conversations = new Conversations(256, 400);
  private final Map<String, ChatCompletions.Call> running = new ConcurrentHashMap<>();

  public OpenAiBackend(BackendContext context, OpenAiSettings settings) {
    this.context = context;
    this.settings = settings;
    this.api = new ChatCompletions(context.vertx(), settings);
  }

  @Override
  public Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks) {
    List<JsonObject> messages;
    String sessionId;
    if (session.resumeSessionId().isPresent()) {
      Optional<List<JsonObject>> history = conversations.history(session.resumeSessionId().get());
      if (history.isEmpty()) {
        // this runtime no longer knows the conversation: a stale session, retried fresh by the handler
        return Future.succeededFuture(BackendResponse.success("", session.resumeSessionId().get(), 0));
      }
      messages = history.get();
      sessionId = session.resumeSessionId().get();
    } else {
      messages = new ArrayList<>();
      sessionId = "oai-" + UUID.randomUUID();
    }
    messages.add(new JsonObject().put("role", "user").put("content", context.injections().prefix(prompt)));
    ToolFunctions tools = new ToolFunctions(context.packTools().available(), context.gate().policy());
    Run run = new Run(session, sessionId, messages, tools, callbacks);
    callbacks.cancellation().onComplete(r -> run.abort());
    return run.round(1);
  }

  /** One message's conversation with the model, round after round. */
  private final class Run {
    private final BackendSession session;
    private final String sessionId;
    private final List<JsonObject> messages;
    private final ToolFunctions tools;
    private final BackendCallbacks callbacks;
    private final StringBuilder answer = new StringBuilder();
    private final List<String> toolsUsed = new ArrayList<>();
    private final long started = System.nanoTime();
    private volatile boolean aborted;

    Run(BackendSession session, String sessionId, List<JsonObject> messages, ToolFunctions tools, BackendCallbacks callbacks) {
      this.session = session;
      this.sessionId = sessionId;
      this.messages = messages;
      this.tools = tools;
      this.callbacks = callbacks;
    }

    void abort() {
      aborted = true;
      ChatCompletions.Call c = running.remove(session.message().requestId());
      if (c != null) {
        c.abort();
      }
    }

    Future<BackendResponse> round(int n) {
      if (aborted) {
        return Future.succeededFuture(BackendResponse.error("cancelled"));
      }
      String injected = context.injections().drainAsText();
      if (!injected.isEmpty()) {
        messages.add(new JsonObject().put("role", "user").put("content", injected));
      }
      JsonObject body = new JsonObject().put("model", settings.model()).put("stream", true)
        .put("stream_options", new JsonObject().put("include_usage", true))
        .put("messages", withSystem());
      if (!tools.isEmpty()) {
        body.put("tools", tools.functions());
      }
      // the request's trace context goes with every call, so the model service's spans join its trace
      ChatCompletions.Call call = api.stream(body, session.message().traceContext().headers(), delta -> {
        Future<Void> f = Future.succeededFuture();
        if (!delta.reasoning().isEmpty()) {
          f = f.compose(v -> callbacks.thinking(delta.reasoning()));
        }
        if (!delta.text().isEmpty()) {
          answer.append(delta.text());
          f = f.compose(v -> callbacks.textChunk(delta.text()));
        }
        return f;
      });
      running.put(session.message().requestId(), call);
      if (aborted) {
        call.abort();
      }
      return call.result().transform(ar -> {
        running.remove(session.message().requestId(), call);
        if (ar.failed()) {
          if (aborted) {
            return Future.succeededFuture(BackendResponse.error("cancelled"));
          }
          LOG.info("chat completions call failed request={} error={}", session.message().requestId(), ar.cause().toString());
          return Future.succeededFuture(BackendResponse.error("The AI service could not be reached (api_error): " + ar.cause().getMessage()));
        }
        ChatCompletions.Result result = ar.result();
        if (!result.ok()) {
          return Future.succeededFuture(BackendResponse.error(FriendlyErrors.http(result.status(), result.errorBody())));
        }
        StreamedTurn turn = result.turn();
        messages.add(turn.assistantMessage());
        // one usage report per model call; the gateway adds them up
        Future<Void> reported = turn.usage().map(callbacks::usage).orElse(Future.succeededFuture());
        List<StreamedTurn.ToolCall> calls = turn.toolCalls();
        if (calls.isEmpty()) {
          return reported.transform(x -> Future.succeededFuture(finish(n)));
        }
        if (n >= settings.maxToolRounds()) {
          return reported.transform(x -> Future.succeededFuture(BackendResponse.error(
            "The model kept calling tools for " + n + " rounds without answering; stopped.")));
        }
        return reported.transform(x -> runTools(calls, 0)).compose(v -> round(n + 1));
      });
    }

    private Future<Void> runTools(List<StreamedTurn.ToolCall> calls, int i) {
      if (i >= calls.size() || aborted) {
        return Future.succeededFuture();
      }
      StreamedTurn.ToolCall c = calls.get(i);
      Optional<PackToolInfo> tool = tools.tool(c.name());
      String name = tool.map(PackToolInfo::name).orElse(c.name());
      toolsUsed.add(name);
      Future<ToolOutcome> outcome = context.gate().run(c.id(), name, c.arguments(), callbacks, () -> tool.isEmpty()
        ? Future.succeededFuture(ToolOutcome.failed("unknown tool " + c.name()))
        : context.packTools().execute(name, c.arguments()).map(OpenAiBackend::outcome));
      return outcome.compose(out -> {
        messages.add(new JsonObject().put("role", "tool").put("tool_call_id", c.id()).put("content",
          out.ran() ? (out.isError() ? "error: " + out.text() : out.text()) : out.text()));
        return runTools(calls, i + 1);
      });
    }

    private BackendResponse finish(int rounds) {
      conversations.save(sessionId, messages);
      long ms = (System.nanoTime() - started) / 1_000_000;
      return new BackendResponse(answer.toString(), Optional.of(sessionId), 0, ms, rounds, toolsUsed, false);
    }

    private List<JsonObject> withSystem() {
      List<JsonObject> all = new ArrayList<>();
      if (!context.systemPrompt().isBlank()) {
        all.add(new JsonObject().put("role", "system").put("content", context.systemPrompt()));
      }
      all.addAll(messages);
      return all;
    }
  }

  private static ToolOutcome outcome(PackToolResult r) {
    return r.outputJson().map(ToolOutcome::output).orElseGet(() -> ToolOutcome.failed(r.error().orElse("the tool failed")));
  }

  @Override
  public Future<Void> cancel(BackendSession session) {
    ChatCompletions.Call c = running.remove(session.message().requestId());
    if (c != null) {
      c.abort();
    }
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> shutdown() {
    running.values().forEach(ChatCompletions.Call::abort);
    return api.close();
  }
}
