package dev.conclave.node.fuzz;

import dev.conclave.node.fuzz.FuzzNode.Caller;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.CreateBindingRequest;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackServiceGrpcClient;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The caller's mistakes the security probe of issue 40 found answered or logged as server faults,
 * sent on purpose to the fuzz node: each is answered as the caller's error, and the node logs nothing
 * at ERROR and no stack trace for any of them (the fuzz suite's {@link LogWatch}).
 */
class ClientMistakesTest {

  private final FuzzNode f = FuzzNode.get();

  @AfterEach
  void nothingLogged() {
    FuzzNode.sleep(500);
    assertThat(f.logs.drain()).as("logged at ERROR or with a stack").isEmpty();
  }

  @Test
  void bindingValuesTheTableCannotHoldAreInvalidArgument() {
    f.logs.drain();
    for (CreateBindingRequest bad : List.of(binding("f".repeat(101), "c", "a"), binding("fz", "c".repeat(301), "a"),
      binding("fz", "c", "a".repeat(201)), binding("f:z", "c", "a"), binding("fz", "c\u0000", "a"), binding("fz", "c", "a b"))) {
      var outcome = f.grpc.unary(AdminServiceGrpcClient.CreateBinding, bad, f.authorization(Caller.ADMIN));
      assertThat(outcome.status()).as(outcome.message()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(outcome.message()).startsWith("binding_invalid:");
    }
  }

  @Test
  void packSchemasThatWouldFailOnEveryCallAreRefusedAtRegistration() throws Exception {
    f.logs.drain();
    String token = packToken("fz-schemas");
    for (String schema : List.of("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"http://127.0.0.1:9/s.json\"}}}",
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"[\"}}}",
      "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/none\"}}}")) {
      Register r = register(token, manifest("fz-schemas", "fz_schema_tool", schema));
      assertThat(r.status(10)).as(schema).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(r.response.statusMessage()).contains("fz_schema_tool").doesNotContain("java.").doesNotContain("Exception");
    }
    for (String reserved : List.of("BUILTIN:evil", "builtin")) {
      assertThat(register(token, manifest(reserved, "fz_reserved_tool", "{\"type\":\"object\"}")).status(10))
        .isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    }
  }

  @Test
  void aPackThatCancelsOrDropsItsConnectionLeavesNoErrorAndFreesItsNames() throws Exception {
    f.logs.drain();
    Register cancelled = register(packToken("fz-leaver"), manifest("fz-leaver", "fz_leaver_tool", "{\"type\":\"object\"}"));
    cancelled.awaitHeaders();
    cancelled.request.cancel();
    GrpcCalls own = new GrpcCalls(f.vertx, f.node.grpcPort());
    Register dropped = register(own, packToken("fz-dropper"), manifest("fz-dropper", "fz_dropper_tool", "{\"type\":\"object\"}"));
    dropped.awaitHeaders();
    own.close();
    // the names are free at once for other packs
    long deadline = System.currentTimeMillis() + 3_000;
    Register heir;
    do {
      heir = register(packToken("fz-heir"), manifest("fz-heir", "fz_leaver_tool", "{\"type\":\"object\"}"));
    } while (heir.rejected("fz_leaver_tool") && System.currentTimeMillis() < deadline);
    assertThat(heir.rejected("fz_leaver_tool")).isFalse();
    heir.request.cancel();
    Register heir2 = register(packToken("fz-heir2"), manifest("fz-heir2", "fz_dropper_tool", "{\"type\":\"object\"}"));
    assertThat(heir2.rejected("fz_dropper_tool")).isFalse();
    heir2.request.cancel();
  }

  @Test
  void aClientClosingMidBodyIsNoError() throws Exception {
    f.logs.drain();
    for (String path : List.of("/api/v1/tasks", "/api/v1/gateway/principals", "/mcp", "/auth/session", "/eventbus/1/fzmidbody/xhr_send")) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", f.node.httpPort()), 5_000);
        OutputStream out = socket.getOutputStream();
        out.write(("POST " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\n" + "authorization: " + f.authorization(Caller.ADMIN)
          + "\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{\"a\":\"" + "x".repeat(1000)).getBytes(StandardCharsets.UTF_8));
        out.flush();
        FuzzNode.sleep(100);
      }
    }
    FuzzNode.sleep(1_000);
  }

  @Test
  void mcpAnswersOnlyJsonRpc2() {
    f.logs.drain();
    FuzzNode.Answer a = f.send(HttpMethod.POST, "/mcp", Caller.MCP, "application/json", new JsonObject().put("jsonrpc", "1.0").put("id", 1)
      .put("method", "initialize").put("params", new JsonObject().put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
        .put("clientInfo", new JsonObject().put("name", "fz").put("version", "1"))).toBuffer().getBytes());
    JsonObject body = new JsonObject(a.body());
    assertThat(body.getString("jsonrpc")).isEqualTo("2.0");
    assertThat(body.getJsonObject("error").getInteger("code")).isEqualTo(-32600);
  }

  // ---- helpers -----------------------------------------------------------------------------------

  private String packToken(String name) {
    var p = dev.conclave.gateway.support.GatewayFixture.await(f.node.runtime().context().principals().create(UUID.randomUUID(),
      PrincipalType.PACK, name, PrincipalStatus.APPROVED, List.of(), Optional.empty(), Optional.empty()));
    return dev.conclave.gateway.support.GatewayFixture.await(f.node.runtime().context().tokens().issue(p, Duration.ofHours(1),
      TokenPurpose.API)).token();
  }

  private static CreateBindingRequest binding(String frontend, String channel, String agent) {
    return CreateBindingRequest.newBuilder().setFrontend(frontend).setChannelId(channel).setAgentId(agent).build();
  }

  private static PackManifest manifest(String packId, String tool, String schema) {
    return PackManifest.newBuilder().setPackId(packId).setVersion("1").addTools(ToolDefinition.newBuilder().setName(tool)
      .setDescription("fuzz").setInputSchemaJson(schema)).build();
  }

  /** A Register call: its request, and its response once the node answered (headers, or the end). */
  private record Register(GrpcClientRequest<PackManifest, ExecuteToolRequest> request,
                          GrpcClientResponse<PackManifest, ExecuteToolRequest> response) {

    GrpcStatus status(int seconds) throws Exception {
      if (response.status() != null) {
        return response.status();
      }
      response.end().otherwiseEmpty().await(seconds, TimeUnit.SECONDS); // the end, failed or not: the status is what counts
      return response.status();
    }

    void awaitHeaders() {
      assertThat(response.headers().get("pack-welcome-bin")).as("registered").isNotNull();
    }

    boolean rejected(String tool) {
      if (response.status() != null) {
        return true; // refused whole (every tool taken)
      }
      String welcome = response.headers().get("pack-welcome-bin");
      try {
        return dev.conclave.proto.coven.PackWelcome.parseFrom(java.util.Base64.getDecoder().decode(welcome)).getRejectedToolsList().contains(tool);
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw new AssertionError(e);
      }
    }
  }

  private Register register(String token, PackManifest manifest) throws Exception {
    return register(f.grpc, token, manifest);
  }

  private static Register register(GrpcCalls grpc, String token, PackManifest manifest) throws Exception {
    GrpcClientRequest<PackManifest, ExecuteToolRequest> request = grpc.open(PackServiceGrpcClient.Register, GrpcCalls.bearer(token))
      .await(10, TimeUnit.SECONDS);
    request.end(manifest);
    GrpcClientResponse<PackManifest, ExecuteToolRequest> response = request.response().await(10, TimeUnit.SECONDS);
    response.handler(call -> { });
    response.exceptionHandler(e -> { });
    return new Register(request, response);
  }
}
