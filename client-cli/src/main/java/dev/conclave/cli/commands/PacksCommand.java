package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code conclave packs}: the packs connected anywhere in the cluster and the built-in packs, with their tools ({@code GET /api/v1/packs}). */
@Command(name = "packs", mixinStandardHelpOptions = true,
  description = "List the tool packs: the live ones (connected anywhere in the cluster) and the built-ins, with their tools.",
  footer = {"", "Example:", "  conclave packs", "  conclave packs -o json | jq -r '.packs[].packId'"})
public final class PacksCommand implements Callable<Integer> {

  static final List<Column> COLUMNS = List.of(Column.field("PACK", "packId"), Column.field("KIND", "kind"), Column.field("VERSION", "version"),
    Column.field("NODE", "node"), Column.field("CAPABILITY", "capability"), Column.field("TOOLS", "tools"));

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    try (Api api = target.api()) {
      JsonObject doc = api.get("/api/v1/packs");
      List<JsonObject> rows = new ArrayList<>();
      doc.getJsonArray("packs", new JsonArray()).forEach(p -> rows.add(((JsonObject) p).copy().put("kind", "live")));
      doc.getJsonArray("builtins", new JsonArray()).forEach(p -> rows.add(((JsonObject) p).copy().put("kind", "builtin")));
      Rendering.print(System.out, output.format, doc, rows, COLUMNS);
      return 0;
    }
  }
}
