package dev.conclave.agent.pack;

import dev.conclave.agent.TraceContext;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.Objects;

/**
 * One call of a pack tool, as the gateway sent it.
 *
 * @param requestId the gateway's id of the call; its result carries it back
 * @param toolName the tool called
 * @param inputJson the arguments as JSON text, as the agent wrote them
 * @param timeout how long the gateway waits for the result before it gives up on the call
 * @param traceContext the W3C trace context of the pack host's span of this call
 *     ({@code conclave.pack_call}), to pass on with the tool's own calls so that they join the
 *     call's trace; {@link TraceContext#NONE} when the pack host does not trace
 */
public record ToolInvocation(String requestId, String toolName, String inputJson, Duration timeout, TraceContext traceContext) {

  public ToolInvocation {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(toolName, "toolName");
    inputJson = inputJson == null ? "" : inputJson;
    Objects.requireNonNull(timeout, "timeout");
    traceContext = traceContext == null ? TraceContext.NONE : traceContext;
  }

  /** A call outside any trace. */
  public ToolInvocation(String requestId, String toolName, String inputJson, Duration timeout) {
    this(requestId, toolName, inputJson, timeout, TraceContext.NONE);
  }

  /**
   * The arguments parsed as a JSON object (a new object on each call); empty input is an empty object.
   *
   * @throws PackToolException when the input is not a JSON object; thrown from a handler, it
   *     becomes the tool's error
   */
  public JsonObject input() {
    if (inputJson.isBlank()) {
      return new JsonObject();
    }
    try {
      return new JsonObject(inputJson);
    } catch (DecodeException | ClassCastException e) {
      throw new PackToolException("invalid input for tool " + toolName + ": expected a JSON object");
    }
  }
}
