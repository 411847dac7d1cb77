package dev.conclave.cli.commands;

import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ContextStore;
import dev.conclave.cli.Targets;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;

/** {@code conclave context add|use|list|delete}: named node URLs and credentials, as kubectl's contexts. */
@Command(name = "context", mixinStandardHelpOptions = true,
  description = {"Named contexts (a node URL, a token file, a CA file), kept in $XDG_CONFIG_HOME/conclave/contexts.json "
    + "(mode 0600). Flags and environment variables override the context."},
  footer = {"", "Example:",
    "  conclave context add prod --url https://conclave.example.com --token-file ~/.conclave/prod.token",
    "  conclave context use prod"},
  subcommands = {ContextCommand.Add.class, ContextCommand.Use.class, ContextCommand.ListContexts.class, ContextCommand.Delete.class})
public final class ContextCommand {

  static ContextStore store() {
    return ContextStore.forUser(System.getenv());
  }

  @Command(name = "add", mixinStandardHelpOptions = true, description = "Add (or replace) a context; the first one becomes current.",
    footer = {"", "Example:", "  conclave context add local --url http://127.0.0.1:8080 --token-file ./data/admin.token"})
  static final class Add implements java.util.concurrent.Callable<Integer> {
    @Parameters(index = "0", description = "The context's name.")
    String name;
    @Option(names = "--url", required = true, description = "The node's HTTP base URL.")
    String url;
    @Option(names = "--token-file", required = true, description = "File holding the bearer token (read at each command, never copied).")
    Path tokenFile;
    @Option(names = "--ca-file", description = "PEM file of the CA certificates trusted for https:// URLs.")
    Path caFile;

    @Override
    public Integer call() {
      Targets.parseUrl(url);
      if (!Files.isReadable(tokenFile)) {
        throw CliFailure.usage("cannot read the token file " + tokenFile);
      }
      if (caFile != null && !Files.isReadable(caFile)) {
        throw CliFailure.usage("cannot read the CA file " + caFile);
      }
      ContextStore store = store();
      store.put(new ContextStore.Context(name, url, tokenFile.toAbsolutePath().normalize().toString(),
        caFile == null ? null : caFile.toAbsolutePath().normalize().toString()));
      System.out.println("context " + name + " saved in " + store.file()
        + (name.equals(store.current().orElse(null)) ? " (current)" : ""));
      return 0;
    }
  }

  @Command(name = "use", mixinStandardHelpOptions = true, description = "Make a context the current one.",
    footer = {"", "Example:", "  conclave context use prod"})
  static final class Use implements java.util.concurrent.Callable<Integer> {
    @Parameters(index = "0", description = "The context's name.")
    String name;

    @Override
    public Integer call() {
      ContextStore store = store();
      if (!store.use(name)) {
        throw CliFailure.usage("no context named " + name + " in " + store.file() + " (conclave context list)");
      }
      System.out.println("current context: " + name);
      return 0;
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Remove a context.",
    footer = {"", "Example:", "  conclave context delete prod"})
  static final class Delete implements java.util.concurrent.Callable<Integer> {
    @Parameters(index = "0", description = "The context's name.")
    String name;

    @Override
    public Integer call() {
      if (!store().remove(name)) {
        throw CliFailure.usage("no context named " + name);
      }
      System.out.println("context " + name + " deleted");
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List the contexts; * marks the current one.",
    footer = {"", "Example:", "  conclave context list -o json"})
  static final class ListContexts implements java.util.concurrent.Callable<Integer> {
    @Mixin
    OutputOption output;

    @Override
    public Integer call() {
      ContextStore store = store();
      String current = store.current().orElse(null);
      JsonArray contexts = new JsonArray();
      store.all().values().forEach(c -> contexts.add(new JsonObject().put("name", c.name()).put("current", c.name().equals(current))
        .put("url", c.url()).put("tokenFile", c.tokenFile()).put("caFile", c.caFile())));
      JsonObject doc = new JsonObject().put("current", current).put("contexts", contexts);
      java.util.List<JsonObject> rows = contexts.stream().map(JsonObject.class::cast).toList();
      Rendering.print(System.out, output.format, doc, rows, java.util.List.of(
        new Column("CURRENT", r -> r.getBoolean("current") ? "*" : " "), Column.field("NAME", "name"),
        Column.field("URL", "url"), Column.field("TOKEN FILE", "tokenFile"), Column.field("CA FILE", "caFile")));
      return 0;
    }
  }
}
