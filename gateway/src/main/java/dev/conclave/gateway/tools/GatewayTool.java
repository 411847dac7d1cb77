package dev.conclave.gateway.tools;

import dev.conclave.platform.packs.ToolCall;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * One of the gateway's own tools (ask_user, admin_*): it needs what only the gateway holds (the
 * conversations, presence, the agents' owners), so the gateway runs it, in the registry beside the
 * pack host's built-ins and the packs' tools. {@link GatewayToolRunner} has checked the caller's
 * capabilities and the input against the schema before {@link #run} is called.
 */
public interface GatewayTool {

  /** The built-in pack it belongs to, such as {@code builtin:ui}. */
  String packId();

  ToolDefinition definition();

  /**
   * Runs the tool. Succeeds with the output as JSON text; fails with a {@link ToolError} whose
   * message the agent sees. Any other failure reaches the agent as a generic error and is logged.
   */
  Future<String> run(ToolCall call, JsonObject input);

  default String name() {
    return definition().getName();
  }
}
