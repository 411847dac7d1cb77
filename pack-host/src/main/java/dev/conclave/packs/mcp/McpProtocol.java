package dev.conclave.packs.mcp;

import dev.conclave.platform.auth.AgentScope;
import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.proto.coven.ToolDefinition;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.ProtocolVersions;
import io.vertx.core.Future;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The MCP methods Conclave serves, on the SDK's schema types: {@code initialize}, {@code ping},
 * {@code tools/list} and {@code tools/call}, for one agent's scope. Tools are the same ones the agent
 * gets in its Welcome, run through the same cluster-wide path; a tool outside the scope (or unknown)
 * is a JSON-RPC error, a tool that ran and failed is a result with {@code isError}.
 */
public final class McpProtocol {

  /** Protocol versions served, oldest first; the last is offered to clients asking for another. */
  public static final List<String> VERSIONS = List.of(ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);
  static final String SERVER_NAME = "conclave";
  static final String SERVER_VERSION = "0.1.0";

  /** A method failed as a JSON-RPC error. */
  public static final class RpcError extends RuntimeException {
    private final int code;

    public RpcError(int code, String message) {
      super(message, null, false, false);
      this.code = code;
    }

    public int code() {
      return code;
    }
  }

  private final McpJsonMapper json;
  private final PackTools tools;
  private final McpToolSpans spans;

  public McpProtocol(McpJsonMapper json, PackTools tools, McpToolSpans spans) {
    this.json = json;
    this.tools = tools;
    this.spans = spans;
  }

  /**
   * Why {@code message} is not JSON-RPC 2.0, the only version MCP speaks; empty when it is. Answers
   * are always built as 2.0 (the SDK's records), whatever a request said.
   */
  public static java.util.Optional<String> versionProblem(McpSchema.JSONRPCMessage message) {
    return McpSchema.JSONRPC_VERSION.equals(message.jsonrpc()) ? java.util.Optional.empty()
      : java.util.Optional.of("\"jsonrpc\" must be \"" + McpSchema.JSONRPC_VERSION + "\"" + (message.jsonrpc() == null ? ", and is missing"
        : ", got \"" + dev.conclave.platform.validation.TextRules.echo(message.jsonrpc()) + "\""));
  }

  /** True when {@code text} is a JSON object (then a message that could not be read is an invalid request, not a parse error). */
  public static boolean isJsonObject(String text) {
    try {
      new io.vertx.core.json.JsonObject(text);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The version to answer an initialize with: the client's if served, else the newest. */
  public static String negotiate(String requested) {
    return VERSIONS.contains(requested) ? requested : VERSIONS.get(VERSIONS.size() - 1);
  }

  public McpSchema.InitializeResult initializeResult(String version) {
    return new McpSchema.InitializeResult(version,
      McpSchema.ServerCapabilities.builder().tools(false).build(),
      new McpSchema.Implementation(SERVER_NAME, "Conclave pack host", SERVER_VERSION),
      "Tools offered by Conclave's built-in packs and connected tool packs, scoped to this agent's capabilities.");
  }

  public McpSchema.InitializeRequest initializeRequest(Object params) {
    try {
      return json.convertValue(params, McpSchema.InitializeRequest.class);
    } catch (RuntimeException e) {
      throw new RpcError(McpSchema.ErrorCodes.INVALID_PARAMS, "initialize params are not valid: "
        + dev.conclave.platform.errors.Failures.safeDetail(String.valueOf(e.getMessage())));
    }
  }

  /**
   * {@code ping}, {@code tools/list} or {@code tools/call}; any other method is METHOD_NOT_FOUND.
   * {@code clientTraceparent}: the MCP client's {@code traceparent} header, which a tool call's span then joins.
   */
  public Future<Object> call(String method, Object params, AgentScope scope, UUID principalId, java.util.Optional<String> clientTraceparent) {
    return switch (method) {
      case McpSchema.METHOD_PING -> Future.succeededFuture(Map.of());
      case McpSchema.METHOD_TOOLS_LIST -> tools.available(scope.capabilities())
        .map(list -> (Object) McpSchema.ListToolsResult.builder(list.stream().map(this::tool).toList()).build());
      case McpSchema.METHOD_TOOLS_CALL -> callTool(params, scope, principalId, clientTraceparent).map(r -> (Object) r);
      default -> Future.failedFuture(new RpcError(McpSchema.ErrorCodes.METHOD_NOT_FOUND, "method not found: " + method));
    };
  }

  private Future<McpSchema.CallToolResult> callTool(Object params, AgentScope scope, UUID principalId, java.util.Optional<String> clientTraceparent) {
    McpSchema.CallToolRequest request;
    try {
      request = json.convertValue(params, McpSchema.CallToolRequest.class);
    } catch (RuntimeException e) {
      return Future.failedFuture(new RpcError(McpSchema.ErrorCodes.INVALID_PARAMS, "tools/call params are not valid"));
    }
    if (request == null || request.name() == null || request.name().isBlank()) {
      return Future.failedFuture(new RpcError(McpSchema.ErrorCodes.INVALID_PARAMS, "tools/call needs the tool's name"));
    }
    String arguments = write(request.arguments() == null ? Map.of() : request.arguments());
    ToolCall call = new ToolCall(UUID.randomUUID().toString(), "", scope.agentId(), principalId, scope.capabilities(), request.name(),
      arguments, ToolCall.ORIGIN_MCP);
    return spans.traced(scope.agentId(), request.name(), clientTraceparent, () -> tools.execute(call)).compose(outcome -> switch (outcome.status()) {
      case OK -> Future.succeededFuture(McpSchema.CallToolResult.builder().addTextContent(outcome.output()).isError(false).build());
      case UNKNOWN_TOOL, FORBIDDEN -> Future.failedFuture(new RpcError(McpSchema.ErrorCodes.INVALID_PARAMS, outcome.error()));
      default -> Future.succeededFuture(McpSchema.CallToolResult.builder().addTextContent(outcome.error()).isError(true).build());
    });
  }

  private McpSchema.Tool tool(ToolDefinition def) {
    return McpSchema.Tool.builder().name(def.getName()).description(def.getDescription())
      .inputSchema(read(def.getInputSchemaJson())).build();
  }

  private Map<String, Object> read(String schema) {
    try {
      return json.readValue(schema, new TypeRef<Map<String, Object>>() { });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
