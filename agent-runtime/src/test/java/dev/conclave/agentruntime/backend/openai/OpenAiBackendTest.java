package dev.conclave.agentruntime.backend.openai;

import dev.conclave.agent.ApprovalDecision;
import dev.conclave.agent.Injection;
import dev.conclave.agent.InjectionPriority;
import dev.conclave.agent.PackToolResult;
import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.InjectionQueue;
import dev.conclave.agentruntime.gate.ToolPolicy;
import dev.conclave.agentruntime.testing.Eventually;
import dev.conclave.agentruntime.testing.RecordingResponse;
import dev.conclave.agentruntime.testing.TestContexts;
import dev.conclave.agentruntime.testing.TestContexts.FakePackTools;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static dev.conclave.agentruntime.backend.openai.ChatCompletionsStandIn.error;
import static dev.conclave.agentruntime.backend.openai.ChatCompletionsStandIn.finish;
import static dev.conclave.agentruntime.backend.openai.ChatCompletionsStandIn.stream;
import static dev.conclave.agentruntime.backend.openai.ChatCompletionsStandIn.streamThenHang;
import static dev.conclave.agentruntime.backend.openai.ChatCompletionsStandIn.text;
import static dev.conclave.agentruntime.backend.openai.ChatCompletionsStandIn.toolCallArgs;
import static dev.conclave.agentruntime.backend.openai.ChatCompletionsStandIn.toolCallStart;
import static dev.conclave.agentruntime.backend.openai.ChatCompletionsStandIn.usage;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The openai backend against a local server speaking the Chat Completions streaming format, through
 * the SDK's BackendHandler (sessions and retries) and the runtime's tool gate.
 */
class OpenAiBackendTest {

  private final Vertx vertx = Vertx.vertx();
  private ChatCompletionsStandIn server;
  private final InjectionQueue injections = new InjectionQueue(8);
  private final FakePackTools packs = new FakePackTools(List.of(
    TestContexts.tool("note_set", "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"}}}"),
    TestContexts.tool("note_get", "{\"type\":\"object\"}")),
    (name, input) -> new PackToolResult("p1", name, Optional.of("{\"status\":\"saved\"}"), Optional.empty()));
  @TempDir
  Path workdir;

  @BeforeEach
  void start() {
    server = new ChatCompletionsStandIn(vertx);
  }

  @AfterEach
  void stop() {
    server.close();
    vertx.close().await();
  }

  private BackendHandler handler(ToolPolicy policy) {
    BackendContext context = TestContexts.context(vertx, workdir, policy, packs, injections, Duration.ofSeconds(5));
    OpenAiBackend backend = new OpenAiBackend(context, new OpenAiSettings(server.baseUrl(), "standin-model", () -> "sk-test",
      Duration.ofSeconds(30), 5));
    return new BackendHandler(vertx, backend, Duration.ofMillis(100), 64);
  }

  private static String await(RecordingResponse r) {
    return Eventually.result(r.terminal());
  }

  @Test
  void streamsTextAndUsageAndOffersThePackToolsAsFunctions() throws Exception {
    server.then(stream(text("Hel"), text("lo"), finish("stop"), usage(12, 2)));
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-1", "th-1", "say hello"), r);
    assertThat(await(r)).isEqualTo("done:Hello");
    assertThat(r.events.subList(0, 3)).containsExactly("text:Hel", "text:lo", "usage:12/2");
    assertThat(r.events.get(3)).startsWith("session_init:oai-");

    JsonObject body = server.requests.get(0);
    assertThat(body.getString("model")).isEqualTo("standin-model");
    assertThat(body.getBoolean("stream")).isTrue();
    assertThat(body.getJsonObject("stream_options").getBoolean("include_usage")).isTrue();
    assertThat(body.getJsonArray("messages").getJsonObject(0)).isEqualTo(new JsonObject().put("role", "user").put("content", "say hello"));
    JsonArray tools = body.getJsonArray("tools");
    assertThat(tools.stream().map(t -> ((JsonObject) t).getJsonObject("function").getString("name"))).containsExactly("note_set", "note_get");
    assertThat(server.authorizations).containsExactly("Bearer sk-test");
  }

  @Test
  void everyRequestOfATracedMessageCarriesItsTraceContext() throws Exception {
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    server.then(stream(toolCallStart(0, "call_1", "note_set"), toolCallArgs(0, "{\"key\":\"a\",\"value\":\"b\"}"),
        finish("tool_calls"), usage(20, 9)))
      .then(stream(text("Saved."), finish("stop"), usage(40, 2)))
      .then(stream(text("Hi."), finish("stop"), usage(4, 1)));
    BackendHandler h = handler(ToolPolicy.defaults());
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "remember a=b",
      dev.conclave.agent.TraceContext.of(Map.of("traceparent", traceparent, "tracestate", "k=v"))), r);
    assertThat(await(r)).isEqualTo("done:Saved.");
    RecordingResponse untraced = new RecordingResponse();
    h.handle(RecordingResponse.message("req-2", "th-2", "hi"), untraced);
    assertThat(await(untraced)).isEqualTo("done:Hi.");
    // both turns of the traced request (before and after its tool call), nothing for the other one
    assertThat(server.traceHeaders).containsExactly(traceparent + "|k=v", traceparent + "|k=v", "null|null");
  }

  @Test
  void aToolCallIsApprovedRunAsAPackToolAndItsResultGoesBackToTheModel() throws Exception {
    server.then(stream(toolCallStart(0, "call_1", "note_set"), toolCallArgs(0, "{\"key\":\"a\","), toolCallArgs(0, "\"value\":\"b\"}"),
        finish("tool_calls"), usage(20, 9)))
      .then(stream(text("Saved."), finish("stop"), usage(40, 2)));
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-1", "th-1", "remember a=b"), r);
    assertThat(await(r)).isEqualTo("done:Saved.");
    assertThat(r.events.subList(0, 9)).containsExactly("usage:20/9", "tool_use:call_1:note_set", "tool_state:call_1:AWAITING_APPROVAL",
      "approval:call_1:note_set", "tool_state:call_1:RUNNING", "tool_result:call_1:{\"status\":\"saved\"}",
      "tool_state:call_1:COMPLETED", "text:Saved.", "usage:40/2");
    assertThat(packs.calls).containsExactly("note_set {\"key\":\"a\",\"value\":\"b\"}");

    JsonArray second = server.requests.get(1).getJsonArray("messages");
    JsonObject assistant = second.getJsonObject(1);
    assertThat(assistant.getString("role")).isEqualTo("assistant");
    assertThat(assistant.getJsonArray("tool_calls").getJsonObject(0).getJsonObject("function").getString("arguments"))
      .isEqualTo("{\"key\":\"a\",\"value\":\"b\"}");
    assertThat(second.getJsonObject(2)).isEqualTo(new JsonObject().put("role", "tool").put("tool_call_id", "call_1")
      .put("content", "{\"status\":\"saved\"}"));
  }

  @Test
  void aDeniedToolIsReportedToTheModelAsDeniedNotSkipped() throws Exception {
    server.then(stream(toolCallStart(0, "call_9", "note_set"), toolCallArgs(0, "{\"key\":\"k\",\"value\":\"v\"}"), finish("tool_calls")))
      .then(stream(text("OK, I will not."), finish("stop")));
    RecordingResponse r = new RecordingResponse(id -> Future.succeededFuture(new ApprovalDecision(id, false, false, false)));
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-1", "th-1", "remember"), r);
    assertThat(await(r)).isEqualTo("done:OK, I will not.");
    assertThat(packs.calls).isEmpty();
    assertThat(r.events).contains("tool_state:call_9:DENIED", "tool_result:call_9:error:denied: the user did not approve note_set");
    JsonObject toolMessage = server.requests.get(1).getJsonArray("messages").getJsonObject(2);
    assertThat(toolMessage.getString("content")).isEqualTo("denied: the user did not approve note_set");
  }

  @Test
  void an529OverloadIsRetriedOnceAndThenSucceeds() throws Exception {
    server.then(error(529, "overloaded_error", "Overloaded")).then(stream(text("fine now"), finish("stop")));
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-1", "th-1", "hi"), r);
    assertThat(await(r)).isEqualTo("done:fine now");
    assertThat(server.requests).hasSize(2);
  }

  @Test
  void aServerErrorThatPersistsEndsWithTheFriendlyMessageAfterOneRetry() throws Exception {
    server.then(error(500, "server_error", "boom")).then(error(500, "server_error", "boom")).then(error(500, "server_error", "boom"));
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-1", "th-1", "hi"), r);
    assertThat(await(r)).isEqualTo("error:" + BackendHandler.FRIENDLY_UNAVAILABLE);
    assertThat(server.requests).hasSize(2);
  }

  @Test
  void aNonRetryableErrorIsReturnedAtOnceAsASentenceNotRawJson() throws Exception {
    server.then(error(400, "invalid_request_error", "model 'x' does not exist")).then(stream(text("never"), finish("stop")));
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-1", "th-1", "hi"), r);
    assertThat(await(r)).isEqualTo("error:The AI service answered HTTP 400 (invalid_request_error): model 'x' does not exist");
    assertThat(server.requests).hasSize(1);
  }

  /** The stand-in never ends the stream by itself, so only the cancel can have cut it; no time is measured. */
  @Test
  void aCancelAbortsTheStreamingCall() throws Exception {
    server.then(streamThenHang(text("thinking about it")));
    RecordingResponse r = new RecordingResponse();
    BackendHandler h = handler(ToolPolicy.defaults());
    h.handle(RecordingResponse.message("req-1", "th-1", "hi"), r);
    Eventually.until("the first chunk", () -> r.events.contains("text:thinking about it"));
    r.cancel("user_requested");
    h.onCancel("req-1", "user_requested");
    assertThat(await(r)).isEqualTo("cancelled:user_requested");
    Eventually.until("the HTTP call was cut", () -> !server.closed.isEmpty());
  }

  @Test
  void theThreadContinuesItsConversationAndAStaleSessionStartsAfresh() throws Exception {
    server.then(stream(text("one"), finish("stop"))).then(stream(text("two"), finish("stop")));
    Restartable backend = new Restartable(this::backend);
    BackendHandler h = new BackendHandler(vertx, backend, Duration.ofMillis(100), 64);
    RecordingResponse first = new RecordingResponse();
    h.handle(RecordingResponse.message("req-1", "th-1", "first"), first);
    await(first);
    RecordingResponse second = new RecordingResponse();
    h.handle(RecordingResponse.message("req-2", "th-1", "second"), second);
    assertThat(await(second)).isEqualTo("done:two");
    JsonArray messages = server.requests.get(1).getJsonArray("messages");
    assertThat(messages.stream().map(m -> ((JsonObject) m).getString("content"))).containsExactly("first", "one", "second");

    // the backend restarts and forgets its conversations; the handler still offers the thread's session
    backend.restart();
    server.then(stream(text("fresh"), finish("stop")));
    RecordingResponse r = new RecordingResponse();
    h.handle(RecordingResponse.message("req-3", "th-1", "third"), r);
    assertThat(await(r)).isEqualTo("done:fresh");
    assertThat(r.events).contains("session_orphaned");
    assertThat(server.requests.get(2).getJsonArray("messages").size()).as("no history: a fresh conversation").isEqualTo(1);
  }

  private OpenAiBackend backend() {
    BackendContext context = TestContexts.context(vertx, workdir, ToolPolicy.defaults(), packs, injections, Duration.ofSeconds(5));
    return new OpenAiBackend(context, new OpenAiSettings(server.baseUrl(), "standin-model", () -> "", Duration.ofSeconds(30), 5));
  }

  /** A backend that can be replaced by a new instance, as a restarted agent process would be. */
  private static final class Restartable implements dev.conclave.agent.backend.AgentBackend {
    private final java.util.function.Supplier<OpenAiBackend> factory;
    private volatile OpenAiBackend current;

    Restartable(java.util.function.Supplier<OpenAiBackend> factory) {
      this.factory = factory;
      this.current = factory.get();
    }

    void restart() {
      current = factory.get();
    }

    @Override
    public Future<dev.conclave.agent.backend.BackendResponse> execute(String prompt, dev.conclave.agent.backend.BackendSession session,
                                                                     dev.conclave.agent.backend.BackendCallbacks callbacks) {
      return current.execute(prompt, session, callbacks);
    }

    @Override public Future<Void> cancel(dev.conclave.agent.backend.BackendSession session) { return current.cancel(session); }
    @Override public Future<Void> shutdown() { return current.shutdown(); }
  }

  @Test
  void injectedContextJoinsTheNextModelCall() throws Exception {
    injections.offer(new Injection("inj-1", "the build is red", InjectionPriority.IMMEDIATE, Optional.of("ci")));
    server.then(stream(text("noted"), finish("stop")));
    RecordingResponse r = new RecordingResponse();
    handler(ToolPolicy.defaults()).handle(RecordingResponse.message("req-1", "th-1", "status?"), r);
    await(r);
    assertThat(server.requests.get(0).getJsonArray("messages").getJsonObject(0).getString("content"))
      .isEqualTo("[context from ci, immediate] the build is red\n\nstatus?");
  }
}
