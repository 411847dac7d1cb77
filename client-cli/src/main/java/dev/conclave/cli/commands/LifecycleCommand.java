package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
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
 * {@code conclave pause|resume|retire ID}: an agent's lifecycle transition (admins;
 * {@code POST /agents/{id}/lifecycle}, docs/sessions.md "Lifecycle").
 */
abstract class LifecycleCommand implements Callable<Integer> {

  @Parameters(index = "0", description = "The agent's id.")
  String id;

  @Option(names = "--reason", description = "Why; recorded with the transition.")
  String reason;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  abstract String to();

  @Override
  public Integer call() {
    try (Api api = target.api()) {
      JsonObject body = new JsonObject().put("to", to());
      if (reason != null) {
        body.put("reason", reason);
      }
      JsonObject answer = api.post("/api/v1/gateway/agents/" + Api.seg(id) + "/lifecycle", body);
      Rendering.print(System.out, output.format, answer, List.of(answer), List.of(Column.field("AGENT", "agentId"),
        Column.field("FROM", "from"), Column.field("TO", "to"), Column.field("EVENT", "event")));
      return 0;
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true,
    description = "Pause an agent (admins): its new requests wait in its mailbox; the one in flight finishes.",
    footer = {"", "Example:", "  conclave pause echo-1 --reason maintenance"})
  static final class Pause extends LifecycleCommand {
    @Override
    String to() {
      return "Paused";
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true,
    description = "Resume a paused (or maintaining, evolving) agent (admins): it gets work again.",
    footer = {"", "Example:", "  conclave resume echo-1"})
  static final class Resume extends LifecycleCommand {
    @Override
    String to() {
      return "Running";
    }
  }

  @Command(name = "retire", mixinStandardHelpOptions = true,
    description = "Retire an agent (admins): it finishes its request in flight, then takes no more work, ever.",
    footer = {"", "Example:", "  conclave retire echo-1"})
  static final class Retire extends LifecycleCommand {
    @Override
    String to() {
      return "Retiring";
    }
  }
}
