package dev.conclave.cli.commands;

import dev.conclave.cli.Api;
import dev.conclave.cli.CliFailure;
import dev.conclave.cli.ExitCodes;
import dev.conclave.cli.output.Column;
import dev.conclave.cli.output.Rendering;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code conclave tools [--agent ID | --capability C…]}: the tools an agent gets, by the Welcome's
 * rule ({@code GET /api/v1/packs/tools?capabilities=…}, admins): for {@code --agent}, the capabilities
 * the registry recorded at its last registration (what it declared, less what its principal was
 * not granted); without either flag, every live tool.
 */
@Command(name = "tools", mixinStandardHelpOptions = true,
  description = {"List the pack tools an agent gets (admins): with --agent, those its capabilities allow (the tools of its Welcome, "
    + "as of its last registration); with --capability, those an agent with these capabilities would get; else every live tool."},
  footer = {"", "Example:", "  conclave tools --agent echo-1", "  conclave tools --capability notes --capability mail -o json"})
public final class ToolsCommand implements Callable<Integer> {

  static final List<Column> COLUMNS = List.of(Column.field("TOOL", "name"), Column.field("PACK", "packId"),
    Column.field("REQUIRES", "requiredCapabilities"), Column.field("TIMEOUT", "timeoutSeconds"),
    new Column("DESCRIPTION", r -> TaskColumns.brief(r.getString("description"))));

  @Option(names = "--agent", description = "The Coven agent whose tools to list (its registered capabilities).")
  String agent;

  @Option(names = "--capability", paramLabel = "CAPABILITY", description = "List the tools these capabilities allow (repeat, or commas).")
  List<String> capabilities;

  @Mixin
  OutputOption output;

  @Mixin
  TargetOptions target;

  @Override
  public Integer call() {
    if (agent != null && capabilities != null) {
      throw CliFailure.usage("give --agent or --capability, not both");
    }
    try (Api api = target.api()) {
      JsonArray caps = capabilities == null ? null : TaskFields.list(capabilities);
      if (agent != null) {
        caps = capabilitiesOf(api, agent);
      }
      StringBuilder query = new StringBuilder();
      if (caps != null) {
        query.append("?capabilities=").append(java.net.URLEncoder.encode(String.join(",", caps.stream().map(String::valueOf).toList()),
          java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20"));
      }
      JsonObject doc = api.get("/api/v1/packs/tools" + query);
      if (agent != null) {
        doc = new JsonObject().put("agentId", agent).mergeIn(doc);
      }
      Rendering.print(System.out, output.format, doc, doc.getJsonArray("tools", new JsonArray()).stream().map(JsonObject.class::cast).toList(), COLUMNS);
      return 0;
    }
  }

  /** The agent's capabilities as the registry recorded them; an agent the caller may not see is not found. */
  private static JsonArray capabilitiesOf(Api api, String agentId) {
    return api.get("/api/v1/gateway/registry/agents").getJsonArray("agents", new JsonArray()).stream().map(JsonObject.class::cast)
      .filter(a -> agentId.equals(a.getString("agentId"))).findFirst()
      .map(a -> a.getJsonArray("capabilities", new JsonArray()))
      .orElseThrow(() -> new CliFailure(ExitCodes.SERVER_ERROR, "agent_not_found: no agent " + agentId + " that you may act on"));
  }
}
