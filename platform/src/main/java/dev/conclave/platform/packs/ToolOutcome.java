package dev.conclave.platform.packs;

import io.vertx.core.json.JsonObject;

import java.util.Arrays;

/**
 * How a tool call ended: with the tool's output (JSON text), or with an error message for the agent
 * and a status saying what kind of failure it was. Exactly one outcome exists per call.
 */
public record ToolOutcome(Status status, String output, String error) {

  /** What happened to a call; the name is what the call record and metrics show. */
  public enum Status {
    OK("ok"),
    /** The tool ran and reported an error. */
    TOOL_ERROR("tool_error"),
    UNKNOWN_TOOL("unknown_tool"),
    /** The agent lacks a capability the tool requires. */
    FORBIDDEN("forbidden"),
    INVALID_INPUT("invalid_input"),
    TIMEOUT("timeout"),
    /** The pack, or the node holding it, went away during the call. */
    PACK_GONE("pack_gone"),
    /** The call could not be run now (no pack host, pack busy, storage down); retrying may work. */
    UNAVAILABLE("unavailable");

    private final String wire;

    Status(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }

    public static Status of(String wire) {
      return Arrays.stream(values()).filter(s -> s.wire.equals(wire)).findFirst().orElse(TOOL_ERROR);
    }
  }

  public static ToolOutcome ok(String output) {
    return new ToolOutcome(Status.OK, output, "");
  }

  public static ToolOutcome failed(Status status, String error) {
    return new ToolOutcome(status, "", error);
  }

  public boolean succeeded() {
    return status == Status.OK;
  }

  public JsonObject toJson() {
    return new JsonObject().put("status", status.wire()).put("output", output).put("error", error);
  }

  public static ToolOutcome fromJson(JsonObject json) {
    return new ToolOutcome(Status.of(json.getString("status", "")), json.getString("output", ""), json.getString("error", ""));
  }
}
