package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code conclave principals}: every principal (admins; {@code GET /principals}). */
@Command(name = "principals", mixinStandardHelpOptions = true,
  description = "List the principals (admins): id, type, name, status, roles, owner, created.",
  footer = {"", "Example:", "  conclave principals", "  conclave principals --status pending",
    "  conclave principals -o json | jq -r '.principals[] | select(.displayName == \"alice\") | .principalId'"})
public final class PrincipalsCommand implements Callable<Integer> {

  static final List<Column> COLUMNS = List.of(Column.field("ID", "principalId"), Column.field("TYPE", "type"),
    Column.field("NAME", "displayName"), Column.field("STATUS", "status"), Column.field("ROLES", "roles"),
    new Column("OWNER", r -> r.getValue("ownerName", r.getValue("ownerId"))), Column.field("CREATED", "createdAt"));

  @Option(names = "--status", paramLabel = "STATUS", description = "Only these: pending, approved or revoked.")
  String status;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    try (Api api = target.api()) {
      JsonObject doc = api.get("/api/v1/gateway/principals" + (status == null ? "" : "?status=" + Api.seg(status)));
      Rendering.print(System.out, output.format, doc, doc.getJsonArray("principals").stream().map(JsonObject.class::cast).toList(), COLUMNS);
      return 0;
    }
  }
}
