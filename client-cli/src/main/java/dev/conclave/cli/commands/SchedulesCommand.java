package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code conclave schedules list|create|delete}: periodic tasks ({@code /api/v1/schedules}, admins; docs/swarm.md "Schedules"). */
@Command(name = "schedules", mixinStandardHelpOptions = true,
  description = "Schedules (admins): a task made from a template at every slot of a cron rule or period, once per slot across the cluster.",
  footer = {"", "Example:", "  conclave schedules create nightly-report --cron '0 2 * * *' --timezone Europe/Berlin --title 'Nightly report'",
    "  conclave schedules list", "  conclave schedules delete nightly-report"},
  subcommands = {SchedulesCommand.ListSchedules.class, SchedulesCommand.Create.class, SchedulesCommand.Delete.class})
public final class SchedulesCommand {

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List the schedules by name (GET /api/v1/schedules).",
    footer = {"", "Example:", "  conclave schedules list -o json | jq -r '.schedules[] | [.name, .nextRunAt] | @tsv'"})
  static final class ListSchedules implements Callable<Integer> {
    @Mixin
    OutputOption output;
    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject doc = api.get("/api/v1/schedules");
        Rendering.print(System.out, output.format, doc, doc.getJsonArray("schedules", new JsonArray()).stream().map(JsonObject.class::cast).toList(),
          TaskColumns.SCHEDULES);
        return 0;
      }
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true,
    description = {"Create a schedule (POST /api/v1/schedules): a NAME, exactly one of --cron and --every, and the task's fields.",
      "A name in use is 409 schedule_already_exists: delete and create again to change one."},
    footer = {"", "Example:", "  conclave schedules create nightly-report --cron '0 2 * * *' --timezone Europe/Berlin --title 'Nightly report' --skill reports",
      "  conclave schedules create hourly-sweep --every PT1H --title 'Sweep stale branches' --priority low"})
  static final class Create implements Callable<Integer> {
    @Parameters(index = "0", description = "The schedule's name (letters, digits, . _ : @ -).")
    String name;
    @Option(names = "--cron", description = "A 5-field cron expression, read in --timezone.")
    String cron;
    @Option(names = "--every", description = "An ISO-8601 period of whole seconds, PT1S to P366D (PT30S, PT1H, P1D).")
    String every;
    @Option(names = "--timezone", description = "An IANA time zone for --cron (default UTC).")
    String timezone;
    @Mixin
    TaskFields task;
    @Mixin
    OutputOption output;
    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      if (task.title == null) {
        throw CliFailure.usage("--title is required: the title of the task each run makes");
      }
      JsonObject body = new JsonObject().put("name", name);
      TaskFields.put(body, "cron", cron);
      TaskFields.put(body, "every", every);
      TaskFields.put(body, "timezone", timezone);
      body.put("task", task.json());
      try (Api api = target.api()) {
        JsonObject made = api.post("/api/v1/schedules", body);
        Rendering.print(System.out, output.format, made, List.of(made), TaskColumns.SCHEDULES);
        return 0;
      }
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true,
    description = "Delete a schedule (DELETE /api/v1/schedules/NAME); the tasks it made stay. Prints it as it was.",
    footer = {"", "Example:", "  conclave schedules delete nightly-report"})
  static final class Delete implements Callable<Integer> {
    @Parameters(index = "0", description = "The schedule's name.")
    String name;
    @Mixin
    OutputOption output;
    @Mixin
    TargetOptions target;

    @Override
    public Integer call() {
      try (Api api = target.api()) {
        JsonObject gone = api.delete("/api/v1/schedules/" + Api.seg(name));
        Rendering.print(System.out, output.format, gone, List.of(gone), TaskColumns.SCHEDULES);
        return 0;
      }
    }
  }
}
