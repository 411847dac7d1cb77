package dev.conclave.gateway.tools.builtin;

import dev.conclave.gateway.control.Questions;
import dev.conclave.gateway.tools.GatewayTool;
import dev.conclave.gateway.tools.ToolError;
import dev.conclave.platform.packs.GatewayToolOps;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.proto.coven.QuestionOption;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.UserQuestionRequest;
import dev.conclave.platform.tracing.RequestSpans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@code ask_user}: puts a question to the people following the agent's conversation and returns
 * their answer as the tool's output. {@link Questions} records the question in the conversation (so
 * a follower that joins or resumes later still sees it) and decides the one answer; this tool waits
 * for it, and at its timeout expires the question, unless an answer got there first.
 */
public final class AskUser implements GatewayTool {

  /** The built-in pack of tools that involve the agent's human, and its capability. */
  public static final String PACK_ID = "builtin:ui";
  public static final String CAPABILITY = "ui";
  private static final Logger LOG = LoggerFactory.getLogger(AskUser.class);

  static final String SCHEMA = "{\"type\":\"object\",\"properties\":{"
    + "\"question\":{\"type\":\"string\",\"description\":\"The question to ask the user\"},"
    + "\"options\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    + "\"label\":{\"type\":\"string\",\"description\":\"Display text for this option\"},"
    + "\"description\":{\"type\":\"string\",\"description\":\"Optional explanation of this option\"}},"
    + "\"required\":[\"label\"]},\"description\":\"Multiple choice options (2-4 recommended)\"},"
    + "\"multi_select\":{\"type\":\"boolean\",\"description\":\"Allow selecting multiple options (default: false)\"},"
    + "\"header\":{\"type\":\"string\",\"description\":\"Short label/category for the question (optional)\"},"
    + "\"timeout_seconds\":{\"type\":\"integer\",\"description\":\"How long to wait for response (default: 60, max: 300)\"}},"
    + "\"required\":[\"question\",\"options\"]}";
  static final String DESCRIPTION = "Ask the user a question and wait for their response. Use this when you need user input, "
    + "clarification, or to present choices. Returns the user's selected option(s) or indicates timeout if they don't respond.";
  /** The question's own timer fires before the dispatcher's, so the agent gets this tool's clear answer. */
  static final int DISPATCH_MARGIN_SECONDS = 5;

  private final Vertx vertx;
  private final Questions questions;
  private final QuestionWaiters waiters;
  private final Duration maxWait;
  private final ToolDefinition definition;

  public AskUser(Vertx vertx, Questions questions, QuestionWaiters waiters, Duration maxWait) {
    this.vertx = vertx;
    this.questions = questions;
    this.waiters = waiters;
    this.maxWait = maxWait;
    this.definition = ToolDefinition.newBuilder().setName("ask_user").setDescription(DESCRIPTION).setInputSchemaJson(SCHEMA)
      .addRequiredCapabilities(CAPABILITY).setTimeoutSeconds((int) maxWait.toSeconds() + DISPATCH_MARGIN_SECONDS).build();
  }

  @Override
  public String packId() {
    return PACK_ID;
  }

  @Override
  public ToolDefinition definition() {
    return definition;
  }

  @Override
  public Future<String> run(ToolCall caller, JsonObject input) {
    UserQuestionRequest question = question(caller, input);
    String id = question.getQuestionId();
    // the time until a person answers, in the call's trace (the call's span is current here). The wait
    // begins and ends on this node: the answer, taken on any node, is announced to the waiter here
    Span wait = RequestSpans.startWait(vertx, "ask_user", Context.current(), Map.of("conclave.question_id", id));
    Future<GatewayToolOps.Answer> answered = waiters.await(id, caller.agentId());
    return questions.ask(caller.agentId(), question)
      .recover(err -> Future.failedFuture(ToolError.of(LOG, "ask_user", err)))
      .onFailure(err -> {
        waiters.forget(id);
        RequestSpans.endWait(wait, "not_asked");
      })
      .compose(posted -> {
        Promise<String> output = Promise.promise();
        long timer = vertx.setTimer(question.getTimeoutSeconds() * 1000L, t -> expire(id, question.getTimeoutSeconds(), output));
        answered.onSuccess(answer -> {
          vertx.cancelTimer(timer);
          output.tryComplete(output(answer.selected(), answer.customText().orElse("")));
        });
        return output.future().onComplete(ar -> RequestSpans.endWait(wait, ar.succeeded() ? "answered" : "expired"));
      });
  }

  /** The wait is over: the question expires, unless the gateway says an answer won the race. */
  private void expire(String id, int seconds, Promise<String> output) {
    waiters.forget(id);
    questions.expire(id)
      .onComplete(ar -> {
        if (ar.succeeded() && "answered".equals(ar.result().getString("state"))) {
          JsonArray selected = ar.result().getJsonArray("selected", new JsonArray());
          output.tryComplete(output(selected.stream().map(String::valueOf).toList(), ar.result().getString("customText", "")));
        } else {
          output.tryFail(new ToolError("ask_user: nobody answered within " + seconds + " s (question " + id + ")"));
        }
      });
  }

  private UserQuestionRequest question(ToolCall caller, JsonObject input) {
    String text = input.getString("question", "");
    if (text.isBlank()) {
      throw new ToolError("question is required");
    }
    JsonArray options = input.getJsonArray("options", new JsonArray());
    if (options.isEmpty()) {
      throw new ToolError("at least one option is required");
    }
    UserQuestionRequest.Builder q = UserQuestionRequest.newBuilder().setAgentId(caller.agentId())
      .setQuestionId(UUID.randomUUID().toString()).setQuestion(text).setMultiSelect(input.getBoolean("multi_select", false));
    Set<String> labels = new HashSet<>();
    for (int i = 0; i < options.size(); i++) {
      JsonObject o = options.getJsonObject(i);
      String label = o.getString("label", "");
      if (label.isBlank()) {
        throw new ToolError("options[" + i + "].label must not be empty");
      }
      if (!labels.add(label)) {
        throw new ToolError("duplicate option label: \"" + label + "\"");
      }
      QuestionOption.Builder option = QuestionOption.newBuilder().setLabel(label);
      String description = o.getString("description", "");
      if (!description.isEmpty()) {
        option.setDescription(description);
      }
      q.addOptions(option);
    }
    String header = input.getString("header", "");
    if (!header.isEmpty()) {
      q.setHeader(header);
    }
    long asked = input.getLong("timeout_seconds", 0L);
    long max = maxWait.toSeconds();
    q.setTimeoutSeconds((int) (asked <= 0 || asked > max ? max : asked));
    return q.build();
  }

  static String output(java.util.List<String> selected, String customText) {
    JsonObject out = new JsonObject().put("answered", true);
    if (!selected.isEmpty()) {
      out.put("selected", new JsonArray(selected));
    }
    if (!customText.isEmpty()) {
      out.put("custom_text", customText);
    }
    return out.encode();
  }
}
