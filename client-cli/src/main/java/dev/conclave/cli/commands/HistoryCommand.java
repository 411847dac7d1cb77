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
import java.util.Set;
import java.util.concurrent.Callable;

/** {@code conclave history CONVERSATION}: a conversation's ledger, newest page (GET …/conversations/{key}/events). */
@Command(name = "history", mixinStandardHelpOptions = true,
  description = "Show a conversation's events (the ledger), oldest first: the newest --limit, or those after --after.",
  footer = {"", "Example:", "  conclave history echo-1 --limit 20", "  conclave history echo-1 -o json"})
public final class HistoryCommand implements Callable<Integer> {

  /** Fields of a ledger event that are not its kind. */
  private static final Set<String> ENVELOPE = Set.of("conversationKey", "timestamp", "eventId", "requestId", "seq");

  @Parameters(index = "0", description = "The conversation's key (an agent's own conversation is keyed by the agent's id).")
  String conversation;

  @Option(names = "--limit", defaultValue = "100", description = "At most this many events (the API's cap is 500).")
  int limit;

  @Option(names = "--after", description = "Only events after this sequence number (oldest first from there).")
  Long after;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    try (Api api = target.api()) {
      String query = "?limit=" + limit + (after == null ? "" : "&after=" + after);
      JsonObject doc = api.get("/api/v1/gateway/conversations/" + Api.seg(conversation) + "/events" + query);
      List<JsonObject> rows = doc.getJsonArray("events").stream().map(JsonObject.class::cast).toList();
      Rendering.print(System.out, output.format, doc, rows, List.of(Column.field("SEQ", "seq"),
        new Column("TIME", r -> r.getJsonObject("event", new JsonObject()).getString("timestamp")),
        new Column("KIND", r -> kind(r.getJsonObject("event", new JsonObject()))),
        new Column("TEXT", r -> text(r.getJsonObject("event", new JsonObject())))));
      return 0;
    }
  }

  /** The ledger event's kind: the name of its payload (text, toolUse, done …). */
  static String kind(JsonObject event) {
    return event.fieldNames().stream().filter(f -> !ENVELOPE.contains(f)).findFirst().orElse("-");
  }

  /** The payload in brief: its text when it has one, else its JSON. */
  static String text(JsonObject event) {
    Object payload = event.getValue(kind(event));
    if (payload instanceof JsonObject p) {
      for (String f : List.of("content", "text", "fullResponse", "message", "name", "reason")) {
        if (p.getValue(f) instanceof String s) {
          return brief(s);
        }
      }
      return brief(p.encode());
    }
    return payload == null ? "" : brief(String.valueOf(payload));
  }

  private static String brief(String text) {
    String one = text.replaceAll("[\\r\\n\\t]+", " ");
    return one.length() > 80 ? one.substring(0, 77) + "..." : one;
  }
}
