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
import dev.conclave.platform.server.CrossSite;
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

  /** Origin check (the node's browser rule, CrossSite: DNS rebinding, pages of other origins) and authentication, before anything else. */
  private void guard(RoutingContext ctx) {
    if (CrossSite.origin(ctx.request()) == CrossSite.Origin.FOREIGN) {
      plain(ctx, 403, "origin not allowed: " + dev.conclave.platform.validation.TextRules.echo(ctx.request().getHeader("origin")));
      return;
    }
    // an MCP token works only while its agent's session lasts: one shared-data read, on any node
    boolean hold = !ctx.request().isEnded();
    if (hold) {
      ctx.request().pause();
    }
    tokens.authenticateHeader(ctx.request().getHeader("authorization"), TokenPurpose.MCP).onComplete(ar -> {
      if (ar.succeeded() && ar.result().agentScope().isPresent()) {
        ctx.put(Caller.class.getName(), ar.result());
        ctx.next();
      } else {
        ConclaveException e = ar.succeeded()
          ? new ConclaveException(dev.conclave.platform.errors.ErrorKind.UNAUTHENTICATED, "token_invalid", "this MCP token names no agent")
          : Failures.classify(ar.cause());
        ctx.response().putHeader("www-authenticate", "Bearer realm=\"conclave-mcp\", error=\"invalid_token\"");
        plain(ctx, e.kind() == dev.conclave.platform.errors.ErrorKind.UNAUTHENTICATED ? 401 : e.kind().httpStatus(),
          e.code() + ": " + e.detail());
      }
      if (hold) {
        ctx.request().resume();
      }
    });
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
      protocol.call(request.method(), request.params(), caller.agentScope().orElseThrow(), caller.principalId(),
          Optional.ofNullable(ctx.request().getHeader("traceparent")))
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
    sessions.open(caller, version).onComplete(ar -> {
      if (ar.failed()) {
        ConclaveException denied = denied(ar.cause());
        if (denied != null) {
          rpcError(ctx, 403, request.id(), McpSchema.ErrorCodes.INVALID_REQUEST, denied.code() + ": " + denied.detail());
          return;
        }
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
    return sessions.find(id, caller)
      .map(found -> {
        if (found.isEmpty()) {
          rpcError(ctx, 404, requestId, McpSchema.ErrorCodes.INVALID_REQUEST, "unknown or expired session: initialize again");
        }
        return found;
      })
      .recover(err -> {
        ConclaveException denied = denied(err);
        if (denied != null) {
          rpcError(ctx, 403, requestId, McpSchema.ErrorCodes.INVALID_REQUEST, denied.code() + ": " + denied.detail());
        } else {
          rpcError(ctx, 503, requestId, McpSchema.ErrorCodes.INTERNAL_ERROR, "sessions are unavailable right now; retry");
        }
        return Future.succeededFuture(Optional.empty());
      });
  }

  /** The refusal in {@code failure} when the caller may not act on its agent (any more); null otherwise. */
  private static ConclaveException denied(Throwable failure) {
    return failure instanceof ConclaveException e && e.kind() == dev.conclave.platform.errors.ErrorKind.PERMISSION_DENIED ? e : null;
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

  private static String known(String method) {
    return switch (method) {
      case McpSchema.METHOD_PING, McpSchema.METHOD_TOOLS_LIST, McpSchema.METHOD_TOOLS_CALL -> method;
      default -> "other";
    };
  }
}
