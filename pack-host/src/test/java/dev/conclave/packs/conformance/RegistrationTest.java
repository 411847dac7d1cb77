package dev.conclave.packs.conformance;

import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.RawPack;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackWelcome;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.CreatePrincipalRequest;
import dev.conclave.proto.coven.CreateTokenRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Who may register a pack, what a manifest must contain, and who owns which tool name. */
class RegistrationTest {

  private static PackHost host;

  @BeforeAll
  static void start() {
    host = PackHost.start();
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @Test
  void onlyPackPrincipalsMayRegister() {
    PackManifest m = RawPack.manifest("weather", RawPack.tool("weather_now"));
    for (String token : new String[] {host.gw().agentToken("not-a-pack"), host.gw().memberToken("member"), host.gw().node().adminToken()}) {
      RawPack.End end = host.openPack(token, m).awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
      assertThat(end.message()).startsWith("pack_principal_required:");
    }
    assertThat(host.openPack(null, m).awaitEnd().status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
  }

  @Test
  void badManifestsAreRefusedNamingTheField() {
    String token = host.packToken("bad-manifests");
    assertRefused(token, PackManifest.newBuilder().setVersion("1").addTools(RawPack.tool("x_tool")).build(), "pack_id is required");
    assertRefused(token, PackManifest.newBuilder().setPackId("empty").build(), "tools must list at least one tool");
    assertRefused(token, RawPack.manifest("noname", ToolDefinition.newBuilder().setInputSchemaJson("{\"type\":\"object\"}").build()),
      "tools[0].name is required");
    for (String schema : new String[] {"", "not json", "[1,2]", "{\"type\":\"string\"}", "{\"type\":\"object\",\"required\":5}"}) {
      assertRefused(token, RawPack.manifest("schemas", ToolDefinition.newBuilder().setName("s_tool").setInputSchemaJson(schema).build()),
        "tools[0].input_schema_json");
    }
    assertRefused(token, RawPack.manifest("twice", RawPack.tool("dup_tool"), RawPack.tool("dup_tool")), "tools[1].name 'dup_tool' is listed twice");
    assertRefused(token, RawPack.manifest("bidi", RawPack.tool("bidi_tool")).toBuilder().setVersion("1.0\u202E").build(), "version");
    assertRefused(token, RawPack.manifest("ctl", RawPack.tool("ctl_tool")).toBuilder().setVersion("1.0\u0007").build(), "version");
    assertRefused(token, RawPack.manifest("builtin:mine", RawPack.tool("mine_tool")), "pack_id 'builtin:mine' is reserved");
    assertRefused(token, RawPack.manifest("slow", RawPack.tool("slow_tool").toBuilder().setTimeoutSeconds(-1).build()),
      "tools[0].timeout_seconds");
  }

  @Test
  void aNameABuiltinOwnsIsRejectedAndTheOtherToolsAreAccepted() {
    try (RawPack pack = host.registerPack(host.packToken("notes-clash"),
      RawPack.manifest("notes-clash", RawPack.tool("note_get"), RawPack.tool("clash_extra")))) {
      PackWelcome welcome = pack.welcome();
      assertThat(welcome.getPackId()).isEqualTo("notes-clash");
      assertThat(welcome.getRejectedToolsList()).containsExactly("note_get");
      try (PackHost.ToolAgent agent = host.agent("clash-agent", "notes")) {
        assertThat(agent.toolNames()).contains("clash_extra", "note_get");
        // note_get is still the built-in
        agent.call("r1", "note_get", "{\"key\":\"nothing\"}");
        assertThat(agent.result().getError()).contains("not found");
      }
    }
  }

  @Test
  void aPackWhoseEveryToolIsTakenIsRefused() {
    try (RawPack first = host.registerPack(host.packToken("first"), RawPack.manifest("first", RawPack.tool("taken_a"), RawPack.tool("taken_b")))) {
      RawPack.End end = host.openPack(host.packToken("second"), RawPack.manifest("second", RawPack.tool("taken_a"), RawPack.tool("taken_b"))).awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.ALREADY_EXISTS);
      assertThat(end.message()).contains("taken_a", "taken_b");
      assertThat(first.ended()).isFalse();
    }
  }

  @Test
  void thePackIdOfAnotherPrincipalIsRefused() {
    try (RawPack first = host.registerPack(host.packToken("owner-a"), RawPack.manifest("owned", RawPack.tool("owned_tool")))) {
      RawPack.End end = host.openPack(host.packToken("owner-b"), RawPack.manifest("owned", RawPack.tool("other_tool"))).awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.ALREADY_EXISTS);
      assertThat(end.message()).startsWith("pack_id_taken:");
      assertThat(first.ended()).isFalse();
    }
  }

  @Test
  void theSamePackRegisteringAgainSupersedesTheOldStream() {
    String token = host.packToken("again");
    RawPack old = host.registerPack(token, RawPack.manifest("again", RawPack.tool("again_tool")));
    try (RawPack fresh = host.registerPack(token, RawPack.manifest("again", RawPack.tool("again_tool"), RawPack.tool("again_new")))) {
      assertThat(fresh.welcome().getRejectedToolsList()).isEmpty();
      RawPack.End end = old.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.ABORTED);
      assertThat(end.message()).startsWith("superseded:");
      // calls now reach the new stream, and the old stream's end did not take its names away
      try (PackHost.ToolAgent agent = host.agent("again-agent")) {
        assertThat(agent.toolNames()).contains("again_tool", "again_new");
        agent.call("q1", "again_tool", "{}");
        var call = fresh.nextCall();
        assertThat(call.getToolName()).isEqualTo("again_tool");
        fresh.answer(call.getRequestId(), "{\"ok\":true}");
        assertThat(agent.result().getOutputJson()).isEqualTo("{\"ok\":true}");
      }
    }
  }

  @Test
  void anAdminCreatesPackPrincipalsAndTheirTokensOverHttpAndGrpc() throws Exception {
    WebClient http = WebClient.create(host.gw().vertx());
    try {
      String admin = host.gw().node().adminToken();
      int port = host.gw().node().httpPort();
      JsonObject principal = http.post(port, "127.0.0.1", "/api/v1/gateway/principals").bearerTokenAuthentication(admin)
        .sendJsonObject(new JsonObject().put("type", "pack").put("displayName", "http-pack"))
        .await(10, TimeUnit.SECONDS).bodyAsJsonObject();
      assertThat(principal.getString("type")).isEqualTo("pack");
      JsonObject token = http.post(port, "127.0.0.1", "/api/v1/gateway/principals/" + principal.getString("principalId") + "/tokens")
        .bearerTokenAuthentication(admin).sendJsonObject(new JsonObject().put("ttlSeconds", 600))
        .await(10, TimeUnit.SECONDS).bodyAsJsonObject();
      try (RawPack pack = host.registerPack(token.getString("token"), RawPack.manifest("http-made", RawPack.tool("http_made_tool")))) {
        assertThat(pack.welcome().getRejectedToolsList()).isEmpty();
      }
      // a member may not
      int refused = http.post(port, "127.0.0.1", "/api/v1/gateway/principals").bearerTokenAuthentication(host.gw().memberToken("m"))
        .sendJsonObject(new JsonObject().put("type", "pack").put("displayName", "sneaky"))
        .await(10, TimeUnit.SECONDS).statusCode();
      assertThat(refused).isEqualTo(403);
    } finally {
      http.close();
    }
    // the same through AdminService
    var created = host.gw().grpc().unary(AdminServiceGrpcClient.CreatePrincipal, CreatePrincipalRequest.newBuilder()
      .setType("pack").setDisplayName("grpc-pack").build(), host.gw().admin().authorization()).response().orElseThrow();
    var issued = host.gw().grpc().unary(AdminServiceGrpcClient.CreateToken, CreateTokenRequest.newBuilder()
      .setPrincipalId(created.getId()).build(), host.gw().admin().authorization()).response().orElseThrow();
    try (RawPack pack = host.registerPack(issued.getToken(), RawPack.manifest("grpc-made", RawPack.tool("grpc_made_tool")))) {
      assertThat(pack.welcome().getPackId()).isEqualTo("grpc-made");
    }
  }

  private static void assertRefused(String token, PackManifest manifest, String messagePart) {
    RawPack.End end = host.openPack(token, manifest).awaitEnd();
    assertThat(end.status()).as(manifest.toString()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(end.message()).contains(messagePart);
  }
}
