package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ExitCodes;
import dev.conclave.cli.TaskLines;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave tasks create}: one task from flags, or many from JSON lines ({@code --from-file},
 * {@code -} for stdin), each line its own {@code POST /api/v1/tasks} so that one bad line does not
 * stop the others; every failed line is reported with its number and the command then exits 1.
 */
@Command(name = "create", mixinStandardHelpOptions = true,
  description = {"Create a task from flags (POST /api/v1/tasks), or one task per line of a JSON-lines file (--from-file, - for stdin).",
    "A uniqueKey that names an unfinished task answers that task (existing: true) instead of a new one.",
    "With --from-file, a line that is not a JSON object or that the server refuses is reported as 'line N: …' on stderr; "
      + "the other lines are still created, and the command exits 1."},
  footer = {"", "Example:", "  conclave tasks create --title 'Add login form' --priority high --skill react --branch feature/login",
    "  conclave tasks create --title 'Nightly report' --unique-key report:2026-12-05 --unique-window-minutes 1440",
    "  conclave tasks create --from-file tasks.jsonl", "  printf '{\"title\":\"a\"}\\n{\"title\":\"b\"}\\n' | conclave tasks create --from-file -"})
final class TaskCreateCommand implements Callable<Integer> {

  static final List<Column> RESULT_COLUMNS = List.of(Column.field("LINE", "line"), Column.field("ID", "id"),
    Column.field("STATUS", "status"), Column.field("RESULT", "result"));

  @Mixin
  TaskFields fields;

  @Option(names = "--id", description = "The task's id (default: a UUID).")
  String id;

  @Option(names = "--depends-on", paramLabel = "TASK", description = "A task that must complete first (repeat, or commas).")
  List<String> dependencies;

  @Option(names = "--unique-key", description = "Makes the create idempotent: an unfinished task with this key answers instead.")
  String uniqueKey;

  @Option(names = "--unique-window-minutes", description = "With --unique-key: a task with the key created this recently answers whatever its state.")
  Integer uniqueWindowMinutes;

  @Option(names = "--from-file", paramLabel = "FILE", description = "JSON lines, one task object per line (- for stdin); blank lines and # comments are skipped.")
  String fromFile;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    if (fromFile != null) {
      if (fields.any() || id != null || dependencies != null || uniqueKey != null || uniqueWindowMinutes != null) {
        throw CliFailure.usage("--from-file takes every task from the file: give no task flags with it");
      }
      return fromLines(readLines());
    }
    if (fields.title == null) {
      throw CliFailure.usage("--title is required (or --from-file)");
    }
    JsonObject task = fields.json();
    TaskFields.put(task, "id", id);
    TaskFields.put(task, "dependencies", TaskFields.list(dependencies));
    TaskFields.put(task, "uniqueKey", uniqueKey);
    TaskFields.put(task, "uniqueWindowMinutes", uniqueWindowMinutes);
    try (Api api = target.api()) {
      JsonObject created = api.post("/api/v1/tasks", task);
      Rendering.print(System.out, output.format, created, List.of(created), TaskColumns.TASKS);
      return 0;
    }
  }

  private List<TaskLines.Line> readLines() {
    if ("-".equals(fromFile)) {
      return TaskLines.read(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
    }
    try (BufferedReader in = Files.newBufferedReader(Path.of(fromFile), StandardCharsets.UTF_8)) {
      return TaskLines.read(in);
    } catch (IOException | java.io.UncheckedIOException e) {
      throw CliFailure.usage("cannot read " + fromFile + " (" + e.getClass().getSimpleName() + ")");
    }
  }

  /**
   * Creates each line's task. A refused token or no node stops at once (every line would fail the
   * same way); any other failure is the line's, and the next line goes on.
   */
  private int fromLines(List<TaskLines.Line> lines) {
    JsonArray results = new JsonArray();
    List<JsonObject> rows = new ArrayList<>();
    int failed = 0;
    try (Api api = target.api()) {
      for (TaskLines.Line line : lines) {
        JsonObject result = new JsonObject().put("line", line.number());
        if (line.task().isEmpty()) {
          result.put("ok", false).put("error", line.problem());
        } else {
          try {
            JsonObject task = api.post("/api/v1/tasks", line.task().get());
            result.put("ok", true).put("existing", task.getBoolean("existing", false)).put("task", task);
          } catch (CliFailure f) {
            if (f.exitCode() != ExitCodes.SERVER_ERROR) {
              throw new CliFailure(f.exitCode(), "line " + line.number() + ": " + f.getMessage());
            }
            result.put("ok", false).put("error", f.getMessage());
          }
        }
        if (!result.getBoolean("ok")) {
          failed++;
          System.err.println("conclave tasks create: line " + line.number() + ": " + result.getString("error"));
        }
        results.add(result);
        JsonObject task = result.getJsonObject("task", new JsonObject());
        rows.add(new JsonObject().put("line", line.number()).put("id", task.getString("id")).put("status", task.getString("status"))
          .put("result", !result.getBoolean("ok") ? result.getString("error") : result.getBoolean("existing") ? "existing" : "created"));
      }
    }
    System.err.flush();
    long existing = results.stream().map(JsonObject.class::cast).filter(r -> r.getBoolean("existing", false)).count();
    JsonObject doc = new JsonObject().put("results", results).put("created", lines.size() - failed - existing)
      .put("existing", existing).put("failed", failed);
    Rendering.print(System.out, output.format, doc, rows, RESULT_COLUMNS);
    return failed == 0 ? ExitCodes.OK : ExitCodes.SERVER_ERROR;
  }
}
