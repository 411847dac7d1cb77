package dev.conclave.gateway.tools;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.packs.BuiltinEntries;
import dev.conclave.platform.packs.PackNodeOps;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolEntry;
import dev.conclave.platform.packs.ToolOutcome;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The gateway's own tools, by name. On start they go into the cluster-wide tool registry as
 * built-ins that the gateway runs (so no pack can take their names, and the pack host's listings
 * and MCP show them), and this node answers {@link Addresses#GATEWAY_TOOL_CALLS}: the calls that
 * reach them from outside an agent stream (MCP on a pack host). An agent stream's calls never use
 * the bus: {@link GatewayPackTools} runs them here.
 */
public final class GatewayTools {

  private final Map<String, GatewayTool> byName = new LinkedHashMap<>();
  private final GatewayToolRunner runner;

  public GatewayTools(List<GatewayTool> tools, GatewayToolRunner runner) {
    this.runner = runner;
    for (GatewayTool tool : tools) {
      if (byName.put(tool.name(), tool) != null) {
        throw new IllegalStateException("gateway tool defined twice: " + tool.name());
      }
    }
  }

  public Optional<GatewayTool> tool(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  public List<GatewayTool> all() {
    return List.copyOf(byName.values());
  }

  /** Puts the tools into the registry and answers calls from elsewhere; returns the consumer to unregister. */
  public Future<MessageConsumer<JsonObject>> start(Vertx vertx) {
    MessageConsumer<JsonObject> calls = vertx.eventBus().consumer(Addresses.GATEWAY_TOOL_CALLS, this::handle);
    List<ToolEntry> entries = byName.values().stream().map(t -> ToolEntry.gatewayBuiltin(t.packId(), t.definition())).toList();
    return calls.completion().compose(v -> BuiltinEntries.publish(vertx, entries)).map(calls);
  }

  private void handle(Message<JsonObject> msg) {
    ToolCall call;
    try {
      call = ToolCall.fromJson(msg.body().getJsonObject("call"));
    } catch (RuntimeException e) {
      msg.fail(400, "the tool call could not be read");
      return;
    }
    Optional<GatewayTool> tool = tool(call.toolName());
    Future<ToolOutcome> outcome = tool.isPresent()
      ? runner.execute(tool.get(), call, PackNodeOps.traceContext(msg.body()))
      : Future.succeededFuture(ToolOutcome.failed(ToolOutcome.Status.UNKNOWN_TOOL,
        "built-in tool '" + call.toolName() + "' is not available on this node (a newer or older Conclave version defined it)"));
    outcome.onSuccess(o -> msg.reply(o.toJson()));
  }
}
