package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.Times;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Format;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code conclave audit}: the audit log, newest first ({@code GET /api/v1/audit}, admins). */
@Command(name = "audit", mixinStandardHelpOptions = true,
  description = {"Read the audit log, newest first (admins): who did what to what, with what outcome.",
    "--since and --until take an ISO-8601 time (2026-12-06T01:00:00Z) or a span back from now (90s, 30m, 1h, 2d, PT1H)."},
  footer = {"", "Example:", "  conclave audit --since 1h", "  conclave audit --principal 7f0c…-uuid --outcome denied -o json",
    "  conclave audit --action token.create --since 2026-12-01T00:00:00Z --until 2026-12-02T00:00:00Z"})
public final class AuditCommand implements Callable<Integer> {

  static final List<Column> COLUMNS = List.of(Column.field("AT", "at"), Column.field("OUTCOME", "outcome"), Column.field("ACTION", "action"),
    new Column("ACTOR", r -> r.getString("actorId") != null ? r.getString("actorId") : r.getString("actorType")), Column.field("TARGET", "target"),
    Column.field("COUNT", "count"), new Column("DETAIL", r -> TaskColumns.brief(r.getString("detail"))));

  @Option(names = "--since", description = "Entries at or after this time.")
  String since;
  @Option(names = "--until", description = "Entries before this time.")
  String until;
  @Option(names = "--principal", description = "Entries whose actor is this principal (its id).")
  String principal;
  @Option(names = "--action", description = "Entries of this action (e.g. token.create).")
  String action;
  @Option(names = "--target", description = "Entries about this target.")
  String target;
  @Option(names = "--outcome", description = "ok, denied or failed.")
  String outcome;
  @Option(names = "--limit", defaultValue = "100", description = "At most this many (1-500; default 100).")
  int limit;
  @Option(names = "--cursor", description = "The page after this one (the nextCursor of the page before).")
  String cursor;
  @Mixin
  OutputOption output;
  @Mixin
  TargetOptions node;

  @Override
  public Integer call() {
    Instant now = Instant.now();
    StringBuilder query = new StringBuilder("?limit=").append(limit);
    TasksCommand.param(query, "since", since == null ? null : Times.parse("--since", since, now));
    TasksCommand.param(query, "until", until == null ? null : Times.parse("--until", until, now));
    TasksCommand.param(query, "actor", principal);
    TasksCommand.param(query, "action", action);
    TasksCommand.param(query, "target", target);
    TasksCommand.param(query, "outcome", outcome);
    TasksCommand.param(query, "cursor", cursor);
    try (Api api = node.api()) {
      JsonObject doc = api.get("/api/v1/audit" + query);
      Rendering.print(System.out, output.format, doc, doc.getJsonArray("entries", new JsonArray()).stream().map(JsonObject.class::cast).toList(), COLUMNS);
      if (output.format == Format.table && doc.getString("nextCursor") != null) {
        System.out.println("(more: --cursor " + doc.getString("nextCursor") + ")");
      }
      return 0;
    }
  }
}
