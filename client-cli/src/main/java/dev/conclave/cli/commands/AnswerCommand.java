package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ExitCodes;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave answer QUESTION_ID TEXT --agent AGENT}: answers an agent's {@code ask_user}
 * question ({@code POST /questions/{id}/answer}), with free text or chosen options.
 */
@Command(name = "answer", mixinStandardHelpOptions = true, description = "Answer an agent's question (ask_user).",
  footer = {"", "Example:", "  conclave answer q-7f3a \"use the staging database\" --agent claude-1",
    "  conclave answer q-7f3a --agent claude-1 --select yes"})
public final class AnswerCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "QUESTION_ID", description = "The question's id.")
  String questionId;

  @Parameters(index = "1..*", arity = "0..*", paramLabel = "TEXT", description = "The answer, as free text.")
  List<String> words;

  @Option(names = "--select", paramLabel = "OPTION", description = "An option's label to choose (repeat for several).")
  List<String> selected;

  @Option(names = "--agent", required = true, description = "The agent that asked.")
  String agent;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    if ((words == null || words.isEmpty()) && (selected == null || selected.isEmpty())) {
      throw CliFailure.usage("give the answer as TEXT, or --select OPTION");
    }
    JsonObject body = new JsonObject().put("agentId", agent);
    if (words != null && !words.isEmpty()) {
      body.put("customText", String.join(" ", words));
    }
    if (selected != null && !selected.isEmpty()) {
      body.put("selected", new JsonArray(List.copyOf(selected)));
    }
    try (Api api = target.api()) {
      JsonObject answer = api.post("/api/v1/gateway/questions/" + Api.seg(questionId) + "/answer", body);
      if (!answer.getBoolean("accepted", false)) {
        throw new CliFailure(ExitCodes.SERVER_ERROR, "not accepted: " + answer.getString("error", "the question is not open"));
      }
      Rendering.print(System.out, output.format, answer, List.of(answer.copy().put("questionId", questionId)),
        List.of(Column.field("QUESTION", "questionId"), Column.field("ACCEPTED", "accepted")));
      return 0;
    }
  }
}
