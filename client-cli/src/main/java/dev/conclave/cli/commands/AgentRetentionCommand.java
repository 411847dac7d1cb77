package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave agents retention ID [--days N] [--keep N] [--clear]}: an agent's own retention
 * (admins; {@code GET} and {@code PUT /agents/{id}/retention}). Without options it shows it; {@code
 * --days} or {@code --keep} changes that part and leaves the other as it is; {@code --clear} goes back
 * to the node's settings.
 */
@Command(name = "retention", mixinStandardHelpOptions = true,
  description = "Show or set an agent's own retention (admins): how many days its conversations keep their events (its finished "
    + "requests follow), and how many latest events each conversation always keeps. '-' is the node's setting; EFFECTIVE is what applies.",
  footer = {"", "Example:", "  conclave agents retention echo-1", "  conclave agents retention echo-1 --days 7 --keep 20",
    "  conclave agents retention echo-1 --clear -o json"})
final class AgentRetentionCommand implements Callable<Integer> {

  static final List<Column> COLUMNS = List.of(Column.field("AGENT", "agentId"), Column.field("DAYS", "conversationDays"),
    Column.field("KEEP", "keepEvents"), new Column("EFFECTIVE DAYS", r -> r.getJsonObject("effective", new JsonObject()).getValue("conversationDays")),
    new Column("EFFECTIVE KEEP", r -> r.getJsonObject("effective", new JsonObject()).getValue("keepEvents")),
    new Column("REQUEST DAYS", r -> r.getJsonObject("effective", new JsonObject()).getValue("requestDays")));

  @Parameters(index = "0", paramLabel = "ID", description = "The agent's id.")
  String id;

  @Option(names = "--days", paramLabel = "N", description = "Delete its conversations' events N days after they were written (N >= 1).")
  Integer days;

  @Option(names = "--keep", paramLabel = "N", description = "Always keep each of its conversations' latest N events (N >= 0).")
  Integer keep;

  @Option(names = "--clear", description = "Drop the override: the node's settings apply again.")
  boolean clear;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    if (clear && (days != null || keep != null)) {
      throw CliFailure.usage("--clear takes no --days or --keep (it drops both)");
    }
    String path = "/api/v1/gateway/agents/" + Api.seg(id) + "/retention";
    try (Api api = target.api()) {
      JsonObject now = api.get(path);
      JsonObject change = change(now, days, keep, clear);
      JsonObject shown = change == null ? now : api.call(HttpMethod.PUT, path, change);
      Rendering.print(System.out, output.format, shown, List.of(shown), COLUMNS);
      return 0;
    }
  }

  /** The body to {@code PUT} given what is set now, or null when nothing changes: a part not given stays as it is. */
  static JsonObject change(JsonObject now, Integer days, Integer keep, boolean clear) {
    if (clear) {
      return new JsonObject();
    }
    if (days == null && keep == null) {
      return null;
    }
    return new JsonObject().put("conversationDays", days != null ? days : now.getValue("conversationDays"))
      .put("keepEvents", keep != null ? keep : now.getValue("keepEvents"));
  }
}
