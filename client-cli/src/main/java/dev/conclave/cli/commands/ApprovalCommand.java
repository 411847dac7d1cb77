package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ExitCodes;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave approve|deny CALL_ID --agent AGENT}: a person's decision on a tool call waiting for
 * approval ({@code POST /approvals}, ApproveTool over HTTP), decided once across every client and
 * node; a call already decided, or not waiting, is exit 1 with the gateway's reason.
 */
abstract class ApprovalCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "CALL_ID", description = "The tool call's id (send shows it: [approval needed CALL_ID]).")
  String callId;

  @Option(names = "--agent", required = true, description = "The agent whose tool call it is.")
  String agent;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  abstract boolean approved();

  JsonObject body() {
    return new JsonObject().put("agentId", agent).put("toolId", callId).put("approved", approved());
  }

  @Override
  public Integer call() {
    try (Api api = target.api()) {
      JsonObject answer = api.post("/api/v1/gateway/approvals", body());
      if (!answer.getBoolean("accepted", false)) {
        throw new CliFailure(ExitCodes.SERVER_ERROR, "not accepted: " + answer.getString("error", "the call is not waiting for a decision"));
      }
      Rendering.print(System.out, output.format, answer, List.of(answer.copy().put("callId", callId).put("decision", approved() ? "approved" : "denied")),
        List.of(Column.field("CALL", "callId"), Column.field("DECISION", "decision")));
      return 0;
    }
  }

  @Command(name = "approve", mixinStandardHelpOptions = true, description = "Approve a tool call that waits for a person.",
    footer = {"", "Example:", "  conclave approve toolu_01 --agent claude-1", "  conclave approve toolu_01 --agent claude-1 --all"})
  static final class Approve extends ApprovalCommand {
    @Option(names = "--all", description = "Approve this tool for the rest of the agent's session too (approve_all).")
    boolean all;

    @Override
    boolean approved() {
      return true;
    }

    @Override
    JsonObject body() {
      return super.body().put("approveAll", all);
    }
  }

  @Command(name = "deny", mixinStandardHelpOptions = true, description = "Deny a tool call that waits for a person.",
    footer = {"", "Example:", "  conclave deny toolu_01 --agent claude-1"})
  static final class Deny extends ApprovalCommand {
    @Override
    boolean approved() {
      return false;
    }
  }
}
