package dev.conclave.packs.api;

import dev.conclave.packs.mcp.McpProtocol;
import dev.conclave.packs.mcp.McpSessions;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.server.EdgeSecurity;
import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.URI;
import java.util.Optional;

/**
 * The MCP endpoint ({@value #PATH}), Streamable HTTP: JSON-RPC over POST answered with one JSON
 * object, sessions by {@code Mcp-Session-Id}, DELETE to end a session, GET refused (the server sends
 * nothing unsolicited). Only MCP tokens (the one in an agent's Welcome) are accepted, and they are
 * accepted nowhere else.
 */
public final class McpHttpEndpoint {

  public static final String PATH = "/mcp";
  static final String SESSION_HEADER = "Mcp-Session-Id";
  static final String VERSION_HEADER = "MCP-Protocol-Version";
  static final long MAX_BODY = 4L * 1024 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(McpHttpEndpoint.class);

  private final TokenService tokens;
  private final EdgeSecurity edge;
  private final McpSessions sessions;
  private final McpProtocol protocol;
  private final McpJsonMapper json;
  private final MeterRegistry metrics;

  public McpHttpEndpoint(TokenService tokens, EdgeSecurity edge, McpSessions sessions, McpProtocol protocol, McpJsonMapper json,
                         MeterRegistry metrics) {
    this.tokens = tokens;
    this.edge = edge;
    this.sessions = sessions;
    this.protocol = protocol;
    this.json = json;
    this.metrics = metrics;
  }

  public void mount(Router router) {
    // outside /api: its own token check (MCP tokens only), declared in the route table all the same
    edge.routes().http("POST", PATH, Audience.MCP_TOKENS, Resource.AGENT);
    edge.routes().http("DELETE", PATH, Audience.MCP_TOKENS, Resource.AGENT);
    router.route(PATH).handler(this::guard);
    router.post(PATH).handler(BodyHandler.create(false).setBodyLimit(MAX_BODY)).handler(this::post);
    router.delete(PATH).handler(this::delete);
    router.route(PATH).handler(ctx -> ctx.response().setStatusCode(405).putHeader("allow", "POST, DELETE").end());
  }

  /** Origin check (DNS rebinding) and authentication, before anything else. */
  private void guard(RoutingContext ctx) {
    String origin = ctx.request().getHeader("origin");
    if (origin != null && !sameHost(origin, ctx.request().authority() == null ? null : ctx.request().authority().host())) {
      plain(ctx, 403, "origin not allowed: " + origin);
      return;
    }
    try {
      Caller caller = tokens.verifyHeader(ctx.request().getHeader("authorization"), TokenPurpose.MCP);
      if (caller.agentScope().isEmpty()) {
        throw new ConclaveException(dev.conclave.platform.errors.ErrorKind.UNAUTHENTICATED, "token_invalid", "this MCP token names no agent");
      }
      ctx.put(Caller.class.getName(), caller);
      ctx.next();
    } catch (ConclaveException e) {
      ctx.response().putHeader("www-authenticate", "Bearer realm=\"conclave-mcp\", error=\"invalid_token\"");
      plain(ctx, 401, e.code() + ": " + e.detail());
    }
  }

  private void post(RoutingContext ctx) {
    Caller caller = ctx.get(Caller.class.getName());
    McpSchema.JSONRPCMessage message;
    // JSON is UTF-8 (RFC 8259): the content-type's charset is not consulted, so a bogus one is no server error
    String body = ctx.body().buffer() == null ? null : ctx.body().buffer().toString(java.nio.charset.StandardCharsets.UTF_8);
    if (body == null || body.isBlank()) {
      rpcError(ctx, 400, null, McpSchema.ErrorCodes.PARSE_ERROR, "empty body: send one JSON-RPC message");
      return;
    }
    if (body.stripLeading().startsWith("[")) {
      rpcError(ctx, 400, null, McpSchema.ErrorCodes.INVALID_REQUEST, "JSON-RPC batches are not supported; send one message per request");
      return;
    }
    try {
      message = McpSchema.deserializeJsonRpcMessage(json, body);
    } catch (IOException | RuntimeException e) {
      // JSON-RPC: a parse error is text that is not JSON; JSON that is no request is an invalid request
      boolean isJson = McpProtocol.isJsonObject(body);
      rpcError(ctx, 400, null, isJson ? McpSchema.ErrorCodes.INVALID_REQUEST : McpSchema.ErrorCodes.PARSE_ERROR,
        isJson ? "not a JSON-RPC 2.0 message" : "not a JSON-RPC message");
      return;
    }
    Optional<String> notJsonRpc2 = McpProtocol.versionProblem(message);
    if (notJsonRpc2.isPresent()) {
      rpcError(ctx, 400, message instanceof McpSchema.JSONRPCRequest r ? r.id() : null, McpSchema.ErrorCodes.INVALID_REQUEST, notJsonRpc2.get());
      return;
    }
    if (message instanceof McpSchema.JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
      initialize(ctx, caller, request);
      return;
    }
    Object id = message instanceof McpSchema.JSONRPCRequest r ? r.id() : null;
    String version = ctx.request().getHeader(VERSION_HEADER);
    if (version != null && !McpProtocol.VERSIONS.contains(version)) {
      rpcError(ctx, 400, id, McpSchema.ErrorCodes.INVALID_REQUEST, "unsupported " + VERSION_HEADER + ": " + version
        + " (served: " + String.join(", ", McpProtocol.VERSIONS) + ")");
      return;
    }
    withSession(ctx, caller, id).onSuccess(session -> {
      if (session.isEmpty()) {
        return;
      }
      if (!(message instanceof McpSchema.JSONRPCRequest request)) {
        // notifications (notifications/initialized) and responses need no answer
        ctx.response().setStatusCode(202).end();
        return;
      }
      metrics.counter(MetricNames.PACKS_MCP_REQUESTS, "method", known(request.method())).increment();
      protocol.call(request.method(), request.params(), caller.agentScope().orElseThrow(), caller.principalId())
        .onComplete(ar -> {
          if (ar.succeeded()) {
            respond(ctx, 200, McpSchema.JSONRPCResponse.result(request.id(), ar.result()));
          } else if (ar.cause() instanceof McpProtocol.RpcError e) {
            rpcError(ctx, 200, request.id(), e.code(), e.getMessage());
          } else {
            ConclaveException e = Failures.report(LOG, "mcp " + request.method() + " agent=" + caller.agentScope().get().agentId(), ar.cause());
            rpcError(ctx, 200, request.id(), McpSchema.ErrorCodes.INTERNAL_ERROR, e.detail());
          }
        });
    });
  }

  private void initialize(RoutingContext ctx, Caller caller, McpSchema.JSONRPCRequest request) {
    metrics.counter(MetricNames.PACKS_MCP_REQUESTS, "method", McpSchema.METHOD_INITIALIZE).increment();
    McpSchema.InitializeRequest init;
    try {
      init = protocol.initializeRequest(request.params());
    } catch (McpProtocol.RpcError e) {
      rpcError(ctx, 200, request.id(), e.code(), e.getMessage());
      return;
    }
    String version = McpProtocol.negotiate(init == null ? "" : init.protocolVersion());
    sessions.open(caller.principalId(), caller.agentScope().orElseThrow().agentId(), version).onComplete(ar -> {
      if (ar.failed()) {
        rpcError(ctx, 503, request.id(), McpSchema.ErrorCodes.INTERNAL_ERROR, "sessions are unavailable right now; retry");
        return;
      }
      ctx.response().putHeader(SESSION_HEADER, ar.result().id());
      respond(ctx, 200, McpSchema.JSONRPCResponse.result(request.id(), protocol.initializeResult(version)));
    });
  }

  private void delete(RoutingContext ctx) {
    Caller caller = ctx.get(Caller.class.getName());
    withSession(ctx, caller, null).onSuccess(session -> session.ifPresent(s -> sessions.close(s.id())
      .onComplete(ar -> ctx.response().setStatusCode(ar.succeeded() ? 204 : 503).end())));
  }

  /** The request's session; empty (and the request already answered) when missing or unknown. */
  private Future<Optional<McpSessions.Session>> withSession(RoutingContext ctx, Caller caller, Object requestId) {
    String id = ctx.request().getHeader(SESSION_HEADER);
    if (id == null || id.isBlank()) {
      rpcError(ctx, 400, requestId, McpSchema.ErrorCodes.INVALID_REQUEST, "missing " + SESSION_HEADER + ": initialize first");
      return Future.succeededFuture(Optional.empty());
    }
    return sessions.find(id, caller.principalId(), caller.agentScope().orElseThrow().agentId())
      .map(found -> {
        if (found.isEmpty()) {
          rpcError(ctx, 404, requestId, McpSchema.ErrorCodes.INVALID_REQUEST, "unknown or expired session: initialize again");
        }
        return found;
      })
      .recover(err -> {
        rpcError(ctx, 503, requestId, McpSchema.ErrorCodes.INTERNAL_ERROR, "sessions are unavailable right now; retry");
        return Future.succeededFuture(Optional.empty());
      });
  }

  private void rpcError(RoutingContext ctx, int status, Object id, int code, String message) {
    if (id == null) {
      // JSON-RPC answers a message whose id is unknown with "id": null, which the SDK's record refuses
      ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(new JsonObject()
        .put("jsonrpc", McpSchema.JSONRPC_VERSION).putNull("id")
        .put("error", new JsonObject().put("code", code).put("message", message)).encode());
      return;
    }
    respond(ctx, status, McpSchema.JSONRPCResponse.error(id, new McpSchema.JSONRPCResponse.JSONRPCError(code, message)));
  }

  private void respond(RoutingContext ctx, int status, McpSchema.JSONRPCResponse response) {
    try {
      ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(json.writeValueAsString(response));
    } catch (IOException e) {
      LOG.error("mcp response could not be encoded", e);
      ctx.response().setStatusCode(500).end();
    }
  }

  private static void plain(RoutingContext ctx, int status, String text) {
    ctx.response().setStatusCode(status).putHeader("content-type", "text/plain; charset=utf-8").end(text);
  }

  private static boolean sameHost(String origin, String host) {
    try {
      String originHost = URI.create(origin).getHost();
      return originHost != null && host != null && originHost.equalsIgnoreCase(host);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static String known(String method) {
    return switch (method) {
      case McpSchema.METHOD_PING, McpSchema.METHOD_TOOLS_LIST, McpSchema.METHOD_TOOLS_CALL -> method;
      default -> "other";
    };
  }
}
