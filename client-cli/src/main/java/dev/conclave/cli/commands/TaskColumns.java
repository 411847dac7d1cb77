package dev.conclave.cli.commands;

import dev.conclave.cli.output.Column;
import io.vertx.core.json.JsonObject;

import java.util.List;

/** How the swarm's tasks and schedules show in a table; JSON keeps the API's documents. */
final class TaskColumns {

  static final List<Column> TASKS = List.of(Column.field("ID", "id"), Column.field("STATUS", "status"),
    Column.field("PRIORITY", "priority"), Column.field("TYPE", "type"), Column.field("AGENT", "assignedAgent"),
    new Column("RETRIES", r -> r.getValue("retryCount") == null ? null : r.getValue("retryCount") + "/" + r.getValue("maxRetries", "-")),
    Column.field("SKILLS", "requiredSkills"), new Column("TITLE", r -> brief(r.getString("title"))));

  static final List<Column> FIELDS = List.of(Column.field("FIELD", "field"), Column.field("VALUE", "value"));

  static final List<Column> SCHEDULES = List.of(Column.field("NAME", "name"),
    new Column("RULE", r -> r.getString("cron") != null ? "cron " + r.getString("cron") : "every " + r.getString("every")),
    Column.field("TIMEZONE", "timezone"), Column.field("NEXT RUN", "nextRunAt"), Column.field("RUNS", "runs"),
    Column.field("MISSED", "missedRuns"), Column.field("LAST TASK", "lastTaskId"),
    new Column("TITLE", r -> brief(r.getJsonObject("task", new JsonObject()).getString("title"))));

  private TaskColumns() {
  }

  /** One document as FIELD/VALUE rows, in its order. */
  static List<JsonObject> fieldRows(JsonObject doc) {
    return doc.fieldNames().stream().map(f -> new JsonObject().put("field", f).put("value", doc.getValue(f))).toList();
  }

  static String brief(String text) {
    if (text == null) {
      return null;
    }
    return text.length() > 60 ? text.substring(0, 57) + "..." : text;
  }
}
