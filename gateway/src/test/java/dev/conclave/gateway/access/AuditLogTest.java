package dev.conclave.gateway.access;

import com.google.protobuf.Empty;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.DeletePrincipalRequest;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.ToolApprovalRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Admin actions, principal and token changes, refusals and failed authentications are in the audit log, which admins query. */
class AuditLogTest {

  private static GatewayFixture gw;
  private static WebClient http;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    http = WebClient.create(gw.vertx());
  }

  @AfterAll
  static void stop() {
    http.close();
    gw.close();
  }

  @Test
  void changesRefusalsAndFailedLoginsAreRecordedWithWhoWhatTargetWhereAndOutcome() {
    String admin = gw.node().adminToken();
    Principal erin = gw.newMember("erin");
    String erinToken = gw.token(erin);
    JsonObject created = send(http.post(port(), "127.0.0.1", "/api/v1/gateway/principals").bearerTokenAuthentication(admin),
      new JsonObject().put("type", "client").put("displayName", "audited")).bodyAsJsonObject();
    assertThat(send(http.post(port(), "127.0.0.1", "/api/v1/gateway/principals").bearerTokenAuthentication(erinToken),
      new JsonObject().put("type", "client").put("displayName", "sneaky")).statusCode()).isEqualTo(403);
    gw.grpc().unary(AdminServiceGrpcClient.DeletePrincipal, DeletePrincipalRequest.newBuilder().setId(created.getString("principalId")).build(),
      GrpcCalls.bearer(admin));
    gw.grpc().unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer("garbage"));
    GatewayFixture.await(gw.node().runtime().context().edge().audit().flush());

    JsonArray all = audit(admin, "limit=500").getJsonArray("entries");
    JsonObject create = find(all, "http POST /api/v1/gateway/principals", "ok");
    assertThat(create.getString("actorId")).isNotBlank();
    assertThat(create.getString("remote")).contains("127.0.0.1");
    JsonObject refused = find(all, "http POST /api/v1/gateway/principals", "denied");
    assertThat(refused.getString("actorId")).isEqualTo(erin.id().toString());
    assertThat(refused.getString("detail")).isEqualTo("admin_required");
    JsonObject deleted = find(all, "grpc coven.AdminService/DeletePrincipal", "ok");
    assertThat(deleted.getString("target")).isEqualTo("id=" + created.getString("principalId"));
    JsonObject failedLogin = find(all, "auth.failed", "denied");
    assertThat(failedLogin.getString("target")).isEqualTo("/coven.ClientService/GetMe");
    assertThat(failedLogin.getString("detail")).isEqualTo("token_invalid");

    JsonObject onlyErin = audit(admin, "actor=" + erin.id());
    assertThat(onlyErin.getJsonArray("entries")).allSatisfy(e -> assertThat(((JsonObject) e).getString("actorId")).isEqualTo(erin.id().toString()));
    JsonObject firstPage = audit(admin, "limit=1");
    assertThat(firstPage.getJsonArray("entries")).hasSize(1);
    JsonObject secondPage = audit(admin, "limit=1&cursor=" + firstPage.getString("nextCursor"));
    assertThat(secondPage.getJsonArray("entries").getJsonObject(0).getLong("id"))
      .isLessThan(firstPage.getJsonArray("entries").getJsonObject(0).getLong("id"));
    assertThat(send(http.get(port(), "127.0.0.1", "/api/v1/audit").bearerTokenAuthentication(erinToken), null).statusCode()).isEqualTo(403);
    assertThat(send(http.get(port(), "127.0.0.1", "/api/v1/audit?outcome=maybe").bearerTokenAuthentication(admin), null).statusCode()).isEqualTo(400);
  }

  @Test
  void anAgentsLifecycleAndAnApprovalDecisionAreRecorded() {
    String admin = gw.node().adminToken();
    Principal owner = gw.newMember("olive");
    Clients olive = gw.clients(gw.token(owner));
    try (RawAgent agent = gw.connect("audited-agent", gw.agentTokenOwnedBy("audited-agent", owner.id()))) {
      olive.sendOk("audited-agent", "clean up", "k-audit");
      ServerMessage work = agent.next();
      agent.respond(work.getSendMessage().getRequestId(), MessageResponse.newBuilder().setToolApprovalRequest(
        ToolApprovalRequest.newBuilder().setId("audit-t1").setName("rm").setInputJson("{}")));
      until(() -> olive.grpc().unary(ClientServiceGrpcClient.ApproveTool, ApproveToolRequest.newBuilder().setAgentId("audited-agent")
        .setToolId("audit-t1").setApproved(true).build(), olive.authorization()).response().map(r -> r.getSuccess()).orElse(false),
        "the approval was pending");
      agent.finish();
      agent.awaitEnd();
    }
    until(() -> {
      GatewayFixture.await(gw.node().runtime().context().edge().audit().flush());
      return audit(admin, "target=agent_id%3Daudited-agent&limit=50").getJsonArray("entries").stream()
        .anyMatch(e -> ((JsonObject) e).getString("action").equals("agent.disconnect"));
    }, "the disconnect was recorded");
    JsonArray entries = audit(admin, "target=agent_id%3Daudited-agent&limit=50").getJsonArray("entries");
    assertThat(find(entries, "agent.register", "ok").getString("actorType")).isEqualTo("agent");
    assertThat(find(entries, "agent.disconnect", "ok").getString("detail")).isNotBlank();
    JsonObject approval = find(audit(admin, "actor=" + owner.id() + "&limit=50").getJsonArray("entries"),
      "grpc coven.ClientService/ApproveTool", "ok");
    assertThat(approval.getString("target")).contains("agent_id=audited-agent").contains("tool_id=audit-t1").contains("approved=true");
  }

  private static void until(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }

  private static JsonObject find(JsonArray entries, String action, String outcome) {
    return entries.stream().map(JsonObject.class::cast)
      .filter(e -> e.getString("action").equals(action) && e.getString("outcome").equals(outcome)).findFirst()
      .orElseThrow(() -> new AssertionError("no " + outcome + " " + action + " in " + entries.encodePrettily()));
  }

  private static JsonObject audit(String token, String query) {
    HttpResponse<Buffer> r = send(http.get(port(), "127.0.0.1", "/api/v1/audit?" + query).bearerTokenAuthentication(token), null);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  private static int port() {
    return gw.node().httpPort();
  }

  private static HttpResponse<Buffer> send(HttpRequest<Buffer> request, JsonObject body) {
    try {
      return (body == null ? request.send() : request.sendJsonObject(body)).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
