package dev.conclave.node.access;

import com.google.protobuf.Empty;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.Binding;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.CreateBindingRequest;
import dev.conclave.proto.coven.CreatePrincipalRequest;
import dev.conclave.proto.coven.CreateTokenRequest;
import dev.conclave.proto.coven.DeleteBindingRequest;
import dev.conclave.proto.coven.DeletePrincipalRequest;
import dev.conclave.proto.coven.ExecuteToolResponse;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.ListAgentsRequest;
import dev.conclave.proto.coven.ListBindingsRequest;
import dev.conclave.proto.coven.ListPrincipalsRequest;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackServiceGrpcClient;
import dev.conclave.proto.coven.RegisterAgentRequest;
import dev.conclave.proto.coven.RegisterClientRequest;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.StreamEventsRequest;
import dev.conclave.proto.coven.ToolApprovalRequest;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.UpdateBindingRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

import static dev.conclave.platform.testing.Await.await;
import static dev.conclave.node.access.MatrixFixture.AGENT_ID;
import static dev.conclave.node.access.MatrixFixture.ALLOWED;
import static dev.conclave.node.access.MatrixFixture.DENIED;
import static dev.conclave.node.access.MatrixFixture.HIDDEN;

/**
 * One probe per route of the {@code RouteTable}: a real call (with whatever it needs set up first)
 * that succeeds for a caller the route admits. Each probe names who, within the route's audience,
 * is admitted ({@code allowed}) and how the others are refused ({@code refusal}): DENIED, or
 * HIDDEN where the route answers 404 so as not to confirm that the thing exists.
 */
final class Probes {

  record Probe(String key, Set<Who> allowed, String refusal, Map<Who, String> overrides, BiFunction<MatrixFixture, Who, String> run) {
  }

  private static final String GW = "/api/v1/gateway";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Map<String, Probe> probes = new LinkedHashMap<>();

  private Probes() {
  }

  static Map<String, Probe> all() {
    Probes p = new Probes();
    p.gateway();
    p.admin();
    p.packs();
    p.gatewayHttp();
    p.swarm();
    return p.probes;
  }

  private void grpc(ServiceMethod<?, ?> method, Set<Who> allowed, BiFunction<MatrixFixture, Who, String> run) {
    add(new Probe("grpc  " + method.fullMethodName(), allowed, DENIED, Map.of(), run));
  }

  private void http(String method, String path, Set<Who> allowed, String refusal, BiFunction<MatrixFixture, Who, String> run) {
    add(new Probe("http " + method + " " + path, allowed, refusal, Map.of(), run));
  }

  private void http(String method, String path, Set<Who> allowed, BiFunction<MatrixFixture, Who, String> run) {
    http(method, path, allowed, DENIED, run);
  }

  private void add(Probe probe) {
    if (probes.put(probe.key(), probe) != null) {
      throw new IllegalStateException("two probes for " + probe.key());
    }
  }

  // ---- the gateway's gRPC services ---------------------------------------------------------

  private void gateway() {
    grpc(CovenControlGrpcClient.AgentStream, Set.of(Who.AGENT, Who.ADMIN), Probes::agentStream);
    grpc(ClientServiceGrpcClient.GetMe, Who.API_CALLERS, (f, who) -> f.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), who));
    grpc(ClientServiceGrpcClient.SendMessage, Who.OWNER_OR_ADMIN, (f, who) -> f.unary(ClientServiceGrpcClient.SendMessage,
      ClientSendMessageRequest.newBuilder().setConversationKey(AGENT_ID).setContent("hello").setIdempotencyKey(f.unique("k")).build(), who));
    grpc(ClientServiceGrpcClient.GetEvents, Who.OWNER_OR_ADMIN, (f, who) -> f.unary(ClientServiceGrpcClient.GetEvents,
      GetEventsRequest.newBuilder().setConversationKey(AGENT_ID).build(), who));
    grpc(ClientServiceGrpcClient.StreamEvents, Who.OWNER_OR_ADMIN, Probes::streamEvents);
    // everyone in the audience may list; the list holds only the agents they may act on
    grpc(ClientServiceGrpcClient.ListAgents, Who.MEMBERS, (f, who) -> f.unary(ClientServiceGrpcClient.ListAgents,
      ListAgentsRequest.getDefaultInstance(), who));
    grpc(ClientServiceGrpcClient.RegisterAgent, Who.MEMBERS, (f, who) -> f.unary(ClientServiceGrpcClient.RegisterAgent,
      RegisterAgentRequest.newBuilder().setDisplayName(f.unique("mx-ssh-agent")).setFingerprint(fingerprint()).build(), who));
    grpc(ClientServiceGrpcClient.RegisterClient, Who.MEMBERS, (f, who) -> f.unary(ClientServiceGrpcClient.RegisterClient,
      RegisterClientRequest.newBuilder().setDisplayName(f.unique("mx-ssh-client")).setFingerprint(fingerprint()).build(), who));
    grpc(ClientServiceGrpcClient.ApproveTool, Who.OWNER_OR_ADMIN, Probes::approveTool);
    grpc(ClientServiceGrpcClient.AnswerQuestion, Who.OWNER_OR_ADMIN, (f, who) -> f.unary(ClientServiceGrpcClient.AnswerQuestion,
      AnswerQuestionRequest.newBuilder().setAgentId(AGENT_ID).setQuestionId("no-such-question").addSelected("yes").build(), who));
  }

  /** Registration with a new agent id: agent principals (and admins standing in) only. */
  private static String agentStream(MatrixFixture f, Who who) {
    try (RawAgent a = RawAgent.open(f.grpc.client(), f.grpc.address(), who == Who.NOBODY ? null : f.tokens.get(who))) {
      a.send(AgentMessage.newBuilder().setRegister(RawAgent.registration(f.unique("mx-probe"))).build());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline) {
        ServerMessage m = a.poll(50);
        if (m != null && m.hasWelcome()) {
          return ALLOWED;
        }
        // the Coven protocol refuses a registration with a RegistrationError on the stream
        if (m != null && m.hasRegistrationError()) {
          String reason = m.getRegistrationError().getReason();
          return reason.contains("only for principals of type 'agent'") ? DENIED : "registration error: " + reason;
        }
        if (m != null) {
          return "unexpected " + m.getPayloadCase();
        }
        if (a.ended()) {
          return MatrixFixture.outcome(a.awaitEnd().status());
        }
      }
      return "no answer";
    }
  }

  /** Following the agent's conversation: refused at once, or still open a second later. */
  private static String streamEvents(MatrixFixture f, Who who) {
    GrpcClientRequest<StreamEventsRequest, dev.conclave.proto.coven.ClientStreamEvent> request =
      await(f.grpc.open(ClientServiceGrpcClient.StreamEvents, f.authorization(who)));
    return openStream(request, StreamEventsRequest.newBuilder().setConversationKey(AGENT_ID).build(), null);
  }

  /** A pending tool approval of a fresh agent the member owns, decided by {@code who}. */
  private static String approveTool(MatrixFixture f, Who who) {
    String agentId = f.unique("mx-approve");
    String token = f.token(f.create(PrincipalType.AGENT, "mx-approve", List.of(), Optional.of(f.principals.get(Who.MEMBER_WITH_ACCESS))));
    try (RawAgent a = RawAgent.open(f.grpc.client(), f.grpc.address(), token)) {
      a.register(RawAgent.registration(agentId));
      var sent = f.call(ClientServiceGrpcClient.SendMessage, ClientSendMessageRequest.newBuilder().setConversationKey(agentId)
        .setContent("tidy up").setIdempotencyKey(f.unique("k")).build(), Who.MEMBER_WITH_ACCESS);
      if (sent.status() != GrpcStatus.OK) {
        throw new AssertionError("set-up send failed: " + sent.status() + " " + sent.message());
      }
      ServerMessage work = a.next();
      a.respond(work.getSendMessage().getRequestId(), MessageResponse.newBuilder().setToolApprovalRequest(
        ToolApprovalRequest.newBuilder().setId("t-1").setName("rm").setInputJson("{}")));
      // the approval must be pending before anyone decides on it
      sleep(300);
      var decided = f.call(ClientServiceGrpcClient.ApproveTool, ApproveToolRequest.newBuilder().setAgentId(agentId).setToolId("t-1")
        .setApproved(false).build(), who);
      if (decided.status() == GrpcStatus.OK && !decided.response().orElseThrow().getSuccess()) {
        return "approval not applied";
      }
      return MatrixFixture.outcome(decided.status());
    }
  }

  // ---- AdminService ------------------------------------------------------------------------

  private void admin() {
    grpc(AdminServiceGrpcClient.ListBindings, Who.ADMIN_ONLY, (f, who) -> f.unary(AdminServiceGrpcClient.ListBindings,
      ListBindingsRequest.getDefaultInstance(), who));
    grpc(AdminServiceGrpcClient.CreateBinding, Who.ADMIN_ONLY, (f, who) -> f.unary(AdminServiceGrpcClient.CreateBinding, binding(f), who));
    grpc(AdminServiceGrpcClient.UpdateBinding, Who.ADMIN_ONLY, (f, who) -> f.unary(AdminServiceGrpcClient.UpdateBinding,
      UpdateBindingRequest.newBuilder().setId(newBinding(f).getId()).setAgentId(AGENT_ID).build(), who));
    grpc(AdminServiceGrpcClient.DeleteBinding, Who.ADMIN_ONLY, (f, who) -> f.unary(AdminServiceGrpcClient.DeleteBinding,
      DeleteBindingRequest.newBuilder().setId(newBinding(f).getId()).build(), who));
    grpc(AdminServiceGrpcClient.CreateToken, Who.ADMIN_ONLY, (f, who) -> f.unary(AdminServiceGrpcClient.CreateToken,
      CreateTokenRequest.newBuilder().setPrincipalId(f.newMember().id().toString()).build(), who));
    grpc(AdminServiceGrpcClient.ListPrincipals, Who.ADMIN_ONLY, (f, who) -> f.unary(AdminServiceGrpcClient.ListPrincipals,
      ListPrincipalsRequest.getDefaultInstance(), who));
    grpc(AdminServiceGrpcClient.CreatePrincipal, Who.ADMIN_ONLY, (f, who) -> f.unary(AdminServiceGrpcClient.CreatePrincipal,
      CreatePrincipalRequest.newBuilder().setType("client").setDisplayName(f.unique("mx-created")).addRoles(Roles.MEMBER).build(), who));
    grpc(AdminServiceGrpcClient.DeletePrincipal, Who.ADMIN_ONLY, (f, who) -> f.unary(AdminServiceGrpcClient.DeletePrincipal,
      DeletePrincipalRequest.newBuilder().setId(f.newMember().id().toString()).build(), who));
  }

  private static CreateBindingRequest binding(MatrixFixture f) {
    return CreateBindingRequest.newBuilder().setFrontend("matrix").setChannelId(f.unique("channel")).setAgentId(AGENT_ID).build();
  }

  private static Binding newBinding(MatrixFixture f) {
    return f.call(AdminServiceGrpcClient.CreateBinding, binding(f), Who.ADMIN).response().orElseThrow();
  }

  // ---- the pack host: PackService, its HTTP API, MCP ---------------------------------------

  private void packs() {
    grpc(PackServiceGrpcClient.Register, Set.of(Who.PACK), Probes::packRegister);
    // a pack answers only calls made to it: another's (or an unknown) request id is not found
    add(new Probe("grpc  " + PackServiceGrpcClient.ToolResult.fullMethodName(), Set.of(Who.PACK), DENIED, Map.of(Who.PACK, HIDDEN),
      (f, who) -> f.unary(PackServiceGrpcClient.ToolResult, ExecuteToolResponse.newBuilder().setRequestId(UUID.randomUUID().toString())
        .setOutputJson("{}").build(), who)));
    http("GET", "/api/v1/packs", Who.MEMBERS, (f, who) -> f.http(HttpMethod.GET, "/api/v1/packs", null, who));
    http("GET", "/api/v1/packs/calls/:agentId", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, "/api/v1/packs/calls/" + AGENT_ID, null, who));
    http("GET", "/api/v1/packs/tools", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, "/api/v1/packs/tools?capabilities=notes", null, who));
    http("POST", "/mcp", Set.of(Who.MCP_TOKEN), (f, who) -> MatrixFixture.outcome(f.send(HttpMethod.POST, "/mcp", initialize(), who,
      Map.of("accept", "application/json, text/event-stream")).statusCode()));
    http("DELETE", "/mcp", Set.of(Who.MCP_TOKEN), (f, who) -> {
      var opened = f.send(HttpMethod.POST, "/mcp", initialize(), Who.MCP_TOKEN, Map.of("accept", "application/json, text/event-stream"));
      String session = opened.getHeader("mcp-session-id");
      if (session == null) {
        throw new AssertionError("no MCP session: " + opened.statusCode() + " " + opened.bodyAsString());
      }
      return MatrixFixture.outcome(f.send(HttpMethod.DELETE, "/mcp", null, who, Map.of("mcp-session-id", session)).statusCode());
    });
  }

  private static String packRegister(MatrixFixture f, Who who) {
    GrpcClientRequest<PackManifest, dev.conclave.proto.coven.ExecuteToolRequest> request =
      await(f.grpc.open(PackServiceGrpcClient.Register, f.authorization(who)));
    PackManifest manifest = PackManifest.newBuilder().setPackId(f.unique("mx-pack")).setVersion("1.0.0")
      .addTools(ToolDefinition.newBuilder().setName(f.unique("mx_tool").replace('-', '_')).setDescription("probe")
        .setInputSchemaJson("{\"type\":\"object\"}")).build();
    return openStream(request, manifest, "pack-welcome-bin");
  }

  private static JsonObject initialize() {
    return new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize").put("params", new JsonObject()
      .put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
      .put("clientInfo", new JsonObject().put("name", "matrix").put("version", "1")));
  }

  // ---- the gateway's HTTP API --------------------------------------------------------------

  private void gatewayHttp() {
    // a request or an injection is looked up for those who may act on its agent; others learn nothing
    http("POST", GW + "/requests/:id/cancel", Who.OWNER_OR_ADMIN, HIDDEN, (f, who) ->
      f.http(HttpMethod.POST, GW + "/requests/" + pendingRequest(f) + "/cancel", new JsonObject(), who));
    http("GET", GW + "/requests/:id", Who.OWNER_OR_ADMIN, HIDDEN, (f, who) ->
      f.http(HttpMethod.GET, GW + "/requests/" + pendingRequest(f), null, who));
    http("POST", GW + "/agents/:agentId/inject", Who.OWNER_OR_ADMIN, (f, who) ->
      f.http(HttpMethod.POST, GW + "/agents/" + AGENT_ID + "/inject", new JsonObject().put("content", "note"), who));
    http("GET", GW + "/injections/:id", Who.OWNER_OR_ADMIN, HIDDEN, (f, who) -> {
      String id = f.setUp(HttpMethod.POST, GW + "/agents/" + AGENT_ID + "/inject", new JsonObject().put("content", "note"),
        Who.MEMBER_WITH_ACCESS).getString("injectionId");
      return f.http(HttpMethod.GET, GW + "/injections/" + id, null, who);
    });
    http("GET", GW + "/usage/agents/:agentId", Who.OWNER_OR_ADMIN, (f, who) -> f.http(HttpMethod.GET, GW + "/usage/agents/" + AGENT_ID, null, who));
    http("GET", GW + "/usage/conversations/:key", Who.OWNER_OR_ADMIN, (f, who) ->
      f.http(HttpMethod.GET, GW + "/usage/conversations/" + AGENT_ID, null, who));
    http("GET", GW + "/agents", Who.MEMBERS, (f, who) -> f.http(HttpMethod.GET, GW + "/agents", null, who));
    http("GET", GW + "/nodes", Who.MEMBERS, (f, who) -> f.http(HttpMethod.GET, GW + "/nodes", null, who));
    // the session protocol's WebSocket (seed 004): the upgrade is what is authorized
    http("GET", "/api/v1/sessions", Who.MEMBERS, (f, who) -> f.webSocket("/api/v1/sessions", who));
    // the agent registry and lifecycle (seed 004): query for members, changes for admins
    http("GET", GW + "/registry/agents", Who.MEMBERS, (f, who) -> f.http(HttpMethod.GET, GW + "/registry/agents?status=connected", null, who));
    http("POST", GW + "/registry/agents", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.POST, GW + "/registry/agents",
      new JsonObject().put("agentId", f.unique("mx-entry")), who));
    http("POST", GW + "/agents/:agentId/lifecycle", Who.ADMIN_ONLY, (f, who) -> {
      String id = f.unique("mx-life");
      f.setUp(HttpMethod.POST, GW + "/registry/agents", new JsonObject().put("agentId", id).put("lifecycle", "defined"), Who.ADMIN);
      return f.http(HttpMethod.POST, GW + "/agents/" + id + "/lifecycle", new JsonObject().put("to", "provisioning"), who);
    });
    http("GET", GW + "/agents/:agentId/retention", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.GET, GW + "/agents/" + AGENT_ID + "/retention", null, who));
    http("PUT", GW + "/agents/:agentId/retention", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.PUT, GW + "/agents/" + AGENT_ID + "/retention", new JsonObject(), who));
    http("GET", GW + "/bindings", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, GW + "/bindings", null, who));
    http("POST", GW + "/bindings", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.POST, GW + "/bindings",
      new JsonObject().put("frontend", "matrix").put("channelId", f.unique("channel")).put("agentId", AGENT_ID), who));
    http("DELETE", GW + "/bindings/:id", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.DELETE, GW + "/bindings/" + newBinding(f).getId(), null, who));
    http("GET", GW + "/principals", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, GW + "/principals", null, who));
    // the console's conversation routes: the same rules as ClientService
    http("POST", GW + "/conversations/:key/messages", Who.OWNER_OR_ADMIN, (f, who) -> f.http(HttpMethod.POST,
      GW + "/conversations/" + AGENT_ID + "/messages", new JsonObject().put("content", "hello").put("idempotencyKey", f.unique("k")), who));
    http("GET", GW + "/conversations/:key/events", Who.OWNER_OR_ADMIN, (f, who) ->
      f.http(HttpMethod.GET, GW + "/conversations/" + AGENT_ID + "/events?limit=5", null, who));
    http("GET", GW + "/conversations/:key/export", Who.OWNER_OR_ADMIN, (f, who) ->
      f.http(HttpMethod.GET, GW + "/conversations/" + AGENT_ID + "/export", null, who));
    http("POST", GW + "/approvals", Who.OWNER_OR_ADMIN, (f, who) -> f.http(HttpMethod.POST, GW + "/approvals",
      new JsonObject().put("agentId", AGENT_ID).put("toolId", "no-such-tool").put("approved", true), who));
    http("POST", GW + "/questions/:questionId/answer", Who.OWNER_OR_ADMIN, (f, who) -> f.http(HttpMethod.POST,
      GW + "/questions/no-such-question/answer", new JsonObject().put("agentId", AGENT_ID).put("selected", new JsonArray().add("yes")), who));

    http("POST", GW + "/principals", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.POST, GW + "/principals",
      new JsonObject().put("type", "client").put("displayName", f.unique("mx-http")), who));
    http("POST", GW + "/principals/:id/tokens", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.POST, GW + "/principals/" + f.newMember().id() + "/tokens", new JsonObject(), who));
    http("POST", GW + "/principals/:id/approve", Who.ADMIN_ONLY, (f, who) -> {
      UUID pending = f.create(PrincipalType.CLIENT, "mx-pending", PrincipalStatus.PENDING, List.of(Roles.MEMBER), Optional.empty()).id();
      return f.http(HttpMethod.POST, GW + "/principals/" + pending + "/approve", new JsonObject(), who);
    });
    http("POST", GW + "/principals/:id/disable", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.POST, GW + "/principals/" + f.newMember().id() + "/disable", new JsonObject(), who));
    http("DELETE", GW + "/principals/:id", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.DELETE, GW + "/principals/" + f.newMember().id(), null, who));

    // capabilities (the admin tools) are an admin's to grant, to agent principals
    http("GET", GW + "/principals/:id/capabilities", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET,
      GW + "/principals/" + f.create(PrincipalType.AGENT, "mx-caps", PrincipalStatus.APPROVED, List.of(), Optional.empty()).id()
        + "/capabilities", null, who));
    http("POST", GW + "/principals/:id/capabilities", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.POST,
      GW + "/principals/" + f.create(PrincipalType.AGENT, "mx-grant", PrincipalStatus.APPROVED, List.of(), Optional.empty()).id()
        + "/capabilities", new JsonObject().put("capability", "admin"), who));
    http("DELETE", GW + "/principals/:id/capabilities/:capability", Who.ADMIN_ONLY, (f, who) -> {
      UUID agent = f.create(PrincipalType.AGENT, "mx-ungrant", PrincipalStatus.APPROVED, List.of(), Optional.empty()).id();
      f.setUp(HttpMethod.POST, GW + "/principals/" + agent + "/capabilities", new JsonObject().put("capability", "admin"), Who.ADMIN);
      return f.http(HttpMethod.DELETE, GW + "/principals/" + agent + "/capabilities/admin", null, who);
    });

    // grants are the owner's to give (and an admin's)
    http("GET", GW + "/agents/:agentId/grants", Who.OWNER_OR_ADMIN, (f, who) -> f.http(HttpMethod.GET, GW + "/agents/" + AGENT_ID + "/grants", null, who));
    http("POST", GW + "/agents/:agentId/grants", Who.OWNER_OR_ADMIN, (f, who) -> f.http(HttpMethod.POST, GW + "/agents/" + AGENT_ID + "/grants",
      new JsonObject().put("principalId", f.newMember().id().toString()), who));
    http("DELETE", GW + "/agents/:agentId/grants/:principalId", Who.OWNER_OR_ADMIN, (f, who) -> {
      String grantee = f.newMember().id().toString();
      f.setUp(HttpMethod.POST, GW + "/agents/" + AGENT_ID + "/grants", new JsonObject().put("principalId", grantee), Who.MEMBER_WITH_ACCESS);
      return f.http(HttpMethod.DELETE, GW + "/agents/" + AGENT_ID + "/grants/" + grantee, null, who);
    });

    http("GET", GW + "/secrets", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, GW + "/secrets", null, who));
    http("PUT", GW + "/secrets/global/:name", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.PUT, GW + "/secrets/global/" + secretName(f),
      new JsonObject().put("value", "s3cret"), who));
    http("PUT", GW + "/secrets/agents/:agentId/:name", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.PUT, GW + "/secrets/agents/" + AGENT_ID + "/" + secretName(f), new JsonObject().put("value", "s3cret"), who));
    http("DELETE", GW + "/secrets/global/:name", Who.ADMIN_ONLY, (f, who) -> {
      String path = GW + "/secrets/global/" + secretName(f);
      f.setUp(HttpMethod.PUT, path, new JsonObject().put("value", "s3cret"), Who.ADMIN);
      return f.http(HttpMethod.DELETE, path, null, who);
    });
    http("DELETE", GW + "/secrets/agents/:agentId/:name", Who.ADMIN_ONLY, (f, who) -> {
      String path = GW + "/secrets/agents/" + AGENT_ID + "/" + secretName(f);
      f.setUp(HttpMethod.PUT, path, new JsonObject().put("value", "s3cret"), Who.ADMIN);
      return f.http(HttpMethod.DELETE, path, null, who);
    });

    // a principal's tokens are its own business (and an admin's): the member's are probed
    http("GET", GW + "/principals/:id/tokens", Who.OWNER_OR_ADMIN, (f, who) ->
      f.http(HttpMethod.GET, GW + "/principals/" + f.principals.get(Who.MEMBER_WITH_ACCESS) + "/tokens", null, who));
    http("DELETE", GW + "/tokens/:tokenId", Who.OWNER_OR_ADMIN, HIDDEN, (f, who) -> {
      String tokenId = f.setUp(HttpMethod.POST, GW + "/principals/" + f.principals.get(Who.MEMBER_WITH_ACCESS) + "/tokens",
        new JsonObject(), Who.ADMIN).getString("tokenId");
      return f.http(HttpMethod.DELETE, GW + "/tokens/" + tokenId, null, who);
    });
    http("GET", "/api/v1/audit", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, "/api/v1/audit?limit=5", null, who));
  }

  /** A message to the agent that it never answers, so its request stays open. */
  private static String pendingRequest(MatrixFixture f) {
    var sent = f.call(ClientServiceGrpcClient.SendMessage, ClientSendMessageRequest.newBuilder().setConversationKey(AGENT_ID)
      .setContent("wait").setIdempotencyKey(f.unique("k")).build(), Who.MEMBER_WITH_ACCESS);
    return sent.response().orElseThrow(() -> new AssertionError("set-up send failed: " + sent.status() + " " + sent.message()))
      .getMessageId();
  }

  private static String secretName(MatrixFixture f) {
    return f.unique("MX_SECRET").replace('-', '_').toUpperCase();
  }

  // ---- the coordinator: task management and the Jetpack protocol ---------------------------

  private void swarm() {
    http("POST", "/api/v1/tasks", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.POST, "/api/v1/tasks", Swarm.task(f, Swarm.skill(f)), who));
    http("GET", "/api/v1/tasks", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, "/api/v1/tasks?limit=5", null, who));
    http("GET", "/api/v1/tasks/:id", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, "/api/v1/tasks/" + Swarm.newTask(f), null, who));
    http("GET", "/api/v1/tasks/:id/history", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.GET, "/api/v1/tasks/" + Swarm.newTask(f) + "/history", null, who));
    http("POST", "/api/v1/tasks/:id/cancel", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.POST, "/api/v1/tasks/" + Swarm.newTask(f) + "/cancel", new JsonObject(), who));
    http("POST", "/api/v1/tasks/:id/retry", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.POST, "/api/v1/tasks/" + Swarm.cancelledTask(f) + "/retry", new JsonObject(), who));
    http("POST", "/api/v1/tasks/bulk", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.POST, "/api/v1/tasks/bulk",
      new JsonObject().put("action", "reprioritize").put("priority", "high").put("filter", new JsonObject().put("ids",
        new io.vertx.core.json.JsonArray().add(Swarm.newTask(f)))), who));
    http("POST", "/api/v1/tasks/:id/review", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.POST, "/api/v1/tasks/" + Swarm.taskNeedingReview(f) + "/review", new JsonObject().put("decision", "approve"), who));
    http("POST", "/api/v1/schedules", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.POST, "/api/v1/schedules",
      Swarm.schedule(f), who));
    http("GET", "/api/v1/schedules", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, "/api/v1/schedules", null, who));
    http("GET", "/api/v1/schedules/:name", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.GET, "/api/v1/schedules/" + Swarm.newSchedule(f), null, who));
    http("DELETE", "/api/v1/schedules/:name", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.DELETE, "/api/v1/schedules/" + Swarm.newSchedule(f), null, who));
    http("GET", "/api/v1/agents", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, "/api/v1/agents", null, who));
    http("GET", "/api/v1/agents/:id", Who.ADMIN_ONLY, (f, who) -> f.http(HttpMethod.GET, "/api/v1/agents/" + Swarm.agent(f).id(), null, who));
    http("POST", "/api/v1/agents/:id/commands", Who.ADMIN_ONLY, (f, who) ->
      f.http(HttpMethod.POST, "/api/v1/agents/" + Swarm.agent(f).id() + "/commands", new JsonObject().put("type", "PING"), who));
    http("GET", "/api/v1/learnings", Who.API_CALLERS, (f, who) -> f.http(HttpMethod.GET, "/api/v1/learnings?q=database", null, who));

    // the protocol: anyone may register a swarm agent, and then acts for it (as do admins); the
    // probes' agents are registered by the member with access
    http("POST", "/api/v1/agents/register", Who.API_CALLERS, (f, who) -> f.http(HttpMethod.POST, "/api/v1/agents/register",
      Swarm.registration(f.unique("mx-swarm"), Swarm.skill(f)), who));
    http("POST", "/api/v1/agents/:id/heartbeat", Who.OWNER_OR_ADMIN, (f, who) -> {
      String id = Swarm.agent(f).id();
      return f.http(HttpMethod.POST, "/api/v1/agents/" + id + "/heartbeat", Swarm.v1().put("agentId", id).put("status", "idle"), who);
    });
    http("POST", "/api/v1/tasks/claim", Who.OWNER_OR_ADMIN, (f, who) ->
      f.http(HttpMethod.POST, "/api/v1/tasks/claim", Swarm.v1().put("agentId", Swarm.agent(f).id()), who));
    http("POST", "/api/v1/tasks/:id/progress", Who.OWNER_OR_ADMIN, (f, who) -> {
      Swarm.Claimed c = Swarm.claimed(f);
      return f.http(HttpMethod.POST, "/api/v1/tasks/" + c.task() + "/progress", Swarm.v1().put("agentId", c.agent()).put("progress",
        new JsonObject().put("phase", "implementing").put("percentComplete", 10).put("description", "working")), who);
    });
    http("POST", "/api/v1/tasks/:id/complete", Who.OWNER_OR_ADMIN, (f, who) -> {
      Swarm.Claimed c = Swarm.claimed(f);
      return f.http(HttpMethod.POST, "/api/v1/tasks/" + c.task() + "/complete", Swarm.v1().put("agentId", c.agent())
        .put("result", Swarm.result()), who);
    });
    http("POST", "/api/v1/tasks/:id/fail", Who.OWNER_OR_ADMIN, (f, who) -> {
      Swarm.Claimed c = Swarm.claimed(f);
      return f.http(HttpMethod.POST, "/api/v1/tasks/" + c.task() + "/fail", Swarm.v1().put("agentId", c.agent()).put("failure",
        new JsonObject().put("type", "task_error").put("message", "broke").put("details", "").put("recoverable", true)), who);
    });
    http("POST", "/api/v1/messages", Who.OWNER_OR_ADMIN, (f, who) -> {
      String skill = Swarm.skill(f);
      String from = Swarm.agent(f, skill).id();
      String to = Swarm.agent(f, skill).id();
      return f.http(HttpMethod.POST, "/api/v1/messages", Swarm.v1().put("agentId", from).put("message", Swarm.message(to)), who);
    });
    http("GET", "/api/v1/messages", Who.OWNER_OR_ADMIN, (f, who) -> {
      String skill = Swarm.skill(f);
      String from = Swarm.agent(f, skill).id();
      String to = Swarm.agent(f, skill).id();
      f.setUp(HttpMethod.POST, "/api/v1/messages", Swarm.v1().put("agentId", from).put("message", Swarm.message(to)), Who.MEMBER_WITH_ACCESS);
      return f.http(HttpMethod.GET, "/api/v1/messages?protocolVersion=1.0&agentId=" + to, null, who);
    });
    http("POST", "/api/v1/messages/:id/ack", Who.OWNER_OR_ADMIN, (f, who) -> {
      String skill = Swarm.skill(f);
      String from = Swarm.agent(f, skill).id();
      String to = Swarm.agent(f, skill).id();
      String id = f.setUp(HttpMethod.POST, "/api/v1/messages", Swarm.v1().put("agentId", from).put("message", Swarm.message(to)
        .put("ackRequired", true)), Who.MEMBER_WITH_ACCESS).getString("messageId");
      return f.http(HttpMethod.POST, "/api/v1/messages/" + id + "/ack", Swarm.v1().put("agentId", to), who);
    });
    http("POST", "/api/v1/leases/acquire", Who.OWNER_OR_ADMIN, (f, who) -> {
      Swarm.Claimed c = Swarm.claimed(f);
      return f.http(HttpMethod.POST, "/api/v1/leases/acquire", Swarm.lease(c).put("taskId", c.task()).put("durationMs", 60_000), who);
    });
    http("POST", "/api/v1/leases/release", Who.OWNER_OR_ADMIN, (f, who) -> {
      Swarm.Claimed c = Swarm.claimed(f);
      f.setUp(HttpMethod.POST, "/api/v1/leases/acquire", Swarm.lease(c).put("taskId", c.task()).put("durationMs", 60_000), Who.MEMBER_WITH_ACCESS);
      return f.http(HttpMethod.POST, "/api/v1/leases/release", Swarm.lease(c), who);
    });
    // a task's conversation: the swarm agent is also the gateway agent the member with access owns
    http("POST", "/api/v1/tasks/:id/conversation", Who.OWNER_OR_ADMIN, (f, who) -> {
      String task = Swarm.claimedByGatewayAgent(f);
      return f.http(HttpMethod.POST, "/api/v1/tasks/" + task + "/conversation", Swarm.v1().put("agentId", AGENT_ID), who);
    });
  }

  /** Set-up for the coordinator's probes: each makes its own agents (with their own skill) and tasks. */
  static final class Swarm {

    record Agent(String id, String skill) {
    }

    record Claimed(String agent, String task) {
    }

    static JsonObject v1() {
      return new JsonObject().put("protocolVersion", "1.0");
    }

    static String skill(MatrixFixture f) {
      return f.unique("skill");
    }

    static JsonObject registration(String id, String skill) {
      return v1().put("agent", new JsonObject().put("id", id).put("name", "agent " + id).put("type", "claude-code")
        .put("capabilities", new JsonObject().put("skills", new JsonArray().add(skill)).put("maxTaskMinutes", 60)
          .put("canRunTests", true).put("canRunBuild", true).put("canAccessBrowser", false))
        .put("machine", new JsonObject().put("id", "m1").put("hostname", "localhost").put("pid", 4242)));
    }

    static Agent agent(MatrixFixture f) {
      return agent(f, skill(f));
    }

    /** A swarm agent registered by the member with access. */
    static Agent agent(MatrixFixture f, String skill) {
      String id = f.unique("mx-swarm");
      f.setUp(HttpMethod.POST, "/api/v1/agents/register", registration(id, skill), Who.MEMBER_WITH_ACCESS);
      return new Agent(id, skill);
    }

    static JsonObject task(MatrixFixture f, String skill) {
      return new JsonObject().put("id", f.unique("mx-task")).put("title", "probe task").put("requiredSkills", new JsonArray().add(skill))
        .put("branch", "branch-" + skill);
    }

    static String newTask(MatrixFixture f) {
      return f.setUp(HttpMethod.POST, "/api/v1/tasks", task(f, skill(f)), Who.ADMIN).getString("id");
    }

    /** A schedule body with a fresh name, a daily cron, and a task no agent has the skill for. */
    static JsonObject schedule(MatrixFixture f) {
      return new JsonObject().put("name", f.unique("mx-schedule")).put("cron", "0 3 * * *").put("timezone", "UTC")
        .put("task", new JsonObject().put("title", "probe schedule").put("requiredSkills", new JsonArray().add(skill(f))));
    }

    /** A schedule created by the admin; its name. */
    static String newSchedule(MatrixFixture f) {
      return f.setUp(HttpMethod.POST, "/api/v1/schedules", schedule(f), Who.ADMIN).getString("name");
    }

    /** A task created and cancelled by the admin: one a retry applies to. */
    static String cancelledTask(MatrixFixture f) {
      String id = newTask(f);
      f.setUp(HttpMethod.POST, "/api/v1/tasks/" + id + "/cancel", new JsonObject(), Who.ADMIN);
      return id;
    }

    /** A task created (by the admin) for a fresh agent of the member's, and claimed by it. */
    static Claimed claimed(MatrixFixture f) {
      Agent a = agent(f);
      return new Claimed(a.id(), claim(f, a));
    }

    private static String claim(MatrixFixture f, Agent a) {
      String task = f.setUp(HttpMethod.POST, "/api/v1/tasks", task(f, a.skill()), Who.ADMIN).getString("id");
      JsonObject claim = f.setUp(HttpMethod.POST, "/api/v1/tasks/claim", v1().put("agentId", a.id()), Who.MEMBER_WITH_ACCESS);
      if (!claim.getBoolean("success", false) || !task.equals(claim.getJsonObject("task").getString("id"))) {
        throw new AssertionError("set-up claim failed: " + claim);
      }
      return task;
    }

    /** A task claimed by the swarm agent of the fixture's gateway agent id (registered once per fixture, by the member with access). */
    static synchronized String claimedByGatewayAgent(MatrixFixture f) {
      String skill = GATEWAY_AGENT_SKILLS.computeIfAbsent(f, fixture -> {
        String s = skill(fixture);
        fixture.setUp(HttpMethod.POST, "/api/v1/agents/register", registration(AGENT_ID, s), Who.MEMBER_WITH_ACCESS);
        return s;
      });
      return claim(f, new Agent(AGENT_ID, skill));
    }

    /** Per fixture (each has its own database: the test classes that share this JVM each register it again). */
    private static final Map<MatrixFixture, String> GATEWAY_AGENT_SKILLS = new java.util.WeakHashMap<>();

    /** A completed task whose quality fell below its branch's baseline: it waits for review. */
    static String taskNeedingReview(MatrixFixture f) {
      Agent a = agent(f);
      String baseline = claim(f, a);
      f.setUp(HttpMethod.POST, "/api/v1/tasks/" + baseline + "/complete", v1().put("agentId", a.id()).put("result", result())
        .put("qualityMetrics", metrics(10)), Who.MEMBER_WITH_ACCESS);
      String worse = claim(f, a);
      f.setUp(HttpMethod.POST, "/api/v1/tasks/" + worse + "/complete", v1().put("agentId", a.id()).put("result", result())
        .put("qualityMetrics", metrics(9)), Who.MEMBER_WITH_ACCESS);
      return worse;
    }

    static JsonObject result() {
      return new JsonObject().put("filesCreated", new JsonArray()).put("filesModified", new JsonArray().add("src/a.ts"))
        .put("filesDeleted", new JsonArray()).put("summary", "done").put("learnings", new JsonArray());
    }

    private static JsonObject metrics(int passed) {
      return new JsonObject().put("testsRan", 10).put("testsPassed", passed).put("lintErrors", 0).put("typeErrors", 0)
        .put("buildSuccess", true);
    }

    static JsonObject message(String to) {
      // a payload's member names are the sender's own (JsonStyleTest)
      return new JsonObject().put("to", to).put("type", "info.discovery").put("payload", new JsonObject().put("n", 1)
        .put("file_path", "src/a.ts"));
    }

    static JsonObject lease(Claimed c) {
      return v1().put("agentId", c.agent()).put("filePath", "src/" + c.task() + ".ts");
    }
  }

  // ---- streams -----------------------------------------------------------------------------

  /**
   * Sends {@code first} and tells how the stream went: refused (its status), or accepted — a
   * header named {@code acceptedHeader} arrived, or (without one) it was still open after a second.
   */
  private static <Req, Resp> String openStream(GrpcClientRequest<Req, Resp> request, Req first, String acceptedHeader) {
    CompletableFuture<String> outcome = new CompletableFuture<>();
    request.response().onComplete(ar -> {
      if (ar.failed()) {
        outcome.complete("failed: " + ar.cause());
        return;
      }
      GrpcClientResponse<Req, Resp> resp = ar.result();
      if (acceptedHeader != null && resp.headers().get(acceptedHeader) != null) {
        outcome.complete(ALLOWED);
      }
      resp.handler(m -> outcome.complete(ALLOWED));
      resp.endHandler(v -> outcome.complete(MatrixFixture.outcome(resp.status())));
      resp.exceptionHandler(e -> outcome.complete(resp.status() == null ? "failed: " + e : MatrixFixture.outcome(resp.status())));
    });
    request.end(first);
    try {
      return acceptedHeader != null ? outcome.get(10, TimeUnit.SECONDS) : outcome.get(1, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return acceptedHeader != null ? "no answer" : ALLOWED;
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      try {
        request.cancel();
      } catch (RuntimeException ignored) {
        // already ended
      }
    }
  }


  private static String fingerprint() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
