package dev.conclave.gateway.tools;

import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
import dev.conclave.platform.packs.ToolScope;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The tools as an agent on this gateway sees them: the gateway's own, run right here, and every
 * other tool in the registry (the pack host's built-ins, the packs'), run where the registry says.
 * One list, by name, as before: the gateway's own take the place of their registry entries.
 */
public final class GatewayPackTools implements PackTools {

  private final GatewayTools own;
  private final GatewayToolRunner runner;
  private final PackTools cluster;

  public GatewayPackTools(GatewayTools own, GatewayToolRunner runner, PackTools cluster) {
    this.own = own;
    this.runner = runner;
    this.cluster = cluster;
  }

  @Override
  public Future<List<ToolDefinition>> available(Set<String> capabilities) {
    return cluster.available(capabilities).map(others -> {
      List<ToolDefinition> out = new ArrayList<>();
      others.stream().filter(d -> own.tool(d.getName()).isEmpty()).forEach(out::add);
      own.all().stream().map(GatewayTool::definition).filter(d -> ToolScope.allows(capabilities, d)).forEach(out::add);
      out.sort(Comparator.comparing(ToolDefinition::getName));
      return out;
    });
  }

  @Override
  public Future<ToolOutcome> execute(ToolCall call) {
    Optional<GatewayTool> tool = own.tool(call.toolName());
    return tool.isPresent() ? runner.execute(tool.get(), call, Optional.empty()) : cluster.execute(call);
  }
}
