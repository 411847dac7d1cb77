package dev.conclave.e2e.interop;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.AgentInfo;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.CreatePrincipalRequest;
import dev.conclave.proto.coven.Principal;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interop with an agent that authenticates like coven's own agents, with an SSH key instead of a
 * token: {@code e2e/interop/coven-ssh-agent.js} (Node.js crypto, {@code @grpc/grpc-js}) signs
 * {@code "<timestamp>|<nonce>"} with ed25519 in Go's ssh.Signature wire format and sends the
 * {@code x-ssh-*} headers on its AgentStream. Against the node jar running as a real process it
 * registers, receives a client's message and answers it: once with a key an admin registered first
 * (AdminService.CreatePrincipal with the key), once with a new key that becomes a pending principal
 * and works after an admin approves it over HTTP.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SshAgentInteropIT {

  private static final String NODE_ID = "ssh-interop-node";

  private static Path root;
  private static NodeProcess node;
  private static AdminClient admin;
  private static Vertx vertx;
  private static GrpcCalls grpc;
  private static String adminAuthorization;

  @BeforeAll
  static void start() throws Exception {
    System.out.println("interop: Node.js " + NodeAgentProcess.checkPrerequisites());
    root = Files.createTempDirectory("conclave-ssh-interop");
    Path data = root.resolve("data");
    // the default policy for unknown keys (pending), stated so the test says what it relies on
    node = NodeProcess.start(data, Map.of("CONCLAVE_NODE_ID", NODE_ID, "CONCLAVE_SSH_UNKNOWN_KEYS", "pending"));
    node.awaitReady(Duration.ofSeconds(90));
    String adminToken = Files.readString(data.resolve("admin.token")).trim();
    admin = new AdminClient(node.grpcPort(), node.httpPort(), adminToken);
    adminAuthorization = GrpcCalls.bearer(adminToken);
    vertx = Vertx.vertx();
    grpc = new GrpcCalls(vertx, node.grpcPort());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (grpc != null) {
        grpc.close();
        vertx.close().await(10, TimeUnit.SECONDS);
      }
      if (admin != null) {
        admin.close();
      }
    } finally {
      try {
        if (node != null && node.alive()) {
          node.terminate(Duration.ofSeconds(30));
        }
      } finally {
        if (node != null) {
          node.close();
        }
        if (root != null) {
          TestDatabase.deleteTree(root);
        }
      }
    }
  }

  @Test
  @Order(1)
  void anAgentWhoseKeyAnAdminRegisteredConnectsAndAnswers() throws Exception {
    Path keyFile = root.resolve("registered_agent_key");
    List<String> printed = SshAgentProcess.printKey(keyFile, "registered-agent@interop");
    String keyLine = printed.get(0);
    String fingerprint = printed.get(1);
    assertThat(keyLine).startsWith("ssh-ed25519 ").endsWith(" registered-agent@interop");
    // the Java side's own reading of the Node agent's key: SHA-256 over the blob, hex
    assertThat(fingerprint).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
      .digest(Base64.getDecoder().decode(keyLine.split(" ")[1]))));

    var created = grpc.unary(AdminServiceGrpcClient.CreatePrincipal, CreatePrincipalRequest.newBuilder()
      .setType("agent").setDisplayName("node ssh agent").setPubkey(keyLine).build(), adminAuthorization);
    assertThat(created.status()).as("CreatePrincipal: %s", created.message()).isEqualTo(GrpcStatus.OK);
    Principal principal = created.response().orElseThrow();
    assertThat(principal.getPubkeyFp()).isEqualTo(fingerprint);

    String agentId = "ssh-agent-registered";
    try (NodeAgentProcess agent = SshAgentProcess.start(keyFile, agentId)) {
      NodeAgentProcess.Line welcome = agent.await("welcome", Duration.ofSeconds(30));
      assertThat(welcome.field("principal")).isEqualTo(principal.getId());
      assertThat(welcome.field("server")).isEqualTo(NODE_ID);
      assertThat(welcome.field("attempt")).as("accepted at the first try").isEqualTo("1");
      AgentInfo listed = admin.listedAgent(agentId).orElseThrow(() -> new AssertionError("ListAgents does not list " + agentId));
      assertThat(listed.getConnected()).isTrue();
      assertThat(listed.getBackend()).isEqualTo("node-ssh");

      roundTrip(agent, agentId, "echo signed with an ssh key", "signed with an ssh key");

      assertThat(agent.terminate(Duration.ofSeconds(15))).as("exit code; output:\n%s", agent.output()).isZero();
    }
  }

  @Test
  @Order(2)
  void aNewKeyWaitsForAnAdminsApprovalAndThenWorks() {
    Path keyFile = root.resolve("new_agent_key");
    String agentId = "ssh-agent-new";
    try (NodeAgentProcess agent = SshAgentProcess.start(keyFile, agentId)) {
      NodeAgentProcess.Line refused = agent.await("refused", Duration.ofSeconds(30));
      assertThat(refused.field("code")).isEqualTo("PERMISSION_DENIED");
      Matcher approvePath = Pattern.compile("POST (/api/v1/gateway/principals/([0-9a-f-]{36})/approve)").matcher(refused.field("details"));
      assertThat(approvePath.find()).as(refused.text()).isTrue();
      String principalId = approvePath.group(2);
      // it keeps trying, freshly signed, and keeps being told to wait
      agent.await("refused", l -> !l.field("attempt").equals("1"), Duration.ofSeconds(10));

      HttpResponse<Buffer> approved = admin.post(approvePath.group(1), new JsonObject());
      assertThat(approved.statusCode()).as(approved.bodyAsString()).isEqualTo(200);

      NodeAgentProcess.Line welcome = agent.await("welcome", Duration.ofSeconds(30));
      assertThat(welcome.field("principal")).isEqualTo(principalId);
      roundTrip(agent, agentId, "echo approved at last", "approved at last");
      assertThat(agent.terminate(Duration.ofSeconds(15))).as("exit code; output:\n%s", agent.output()).isZero();
    }
  }

  private static void roundTrip(NodeAgentProcess agent, String agentId, String content, String expected) {
    String request = admin.send(agentId, content);
    List<ClientStreamEvent> events;
    try (RequestFeed feed = admin.feed(agentId, request)) {
      events = feed.untilTerminal();
    }
    ClientStreamEvent done = events.get(events.size() - 1);
    assertThat(done.hasDone()).as("terminal event %s", done).isTrue();
    assertThat(events.stream().filter(ClientStreamEvent::hasText).map(e -> e.getText().getContent()).collect(Collectors.joining()))
      .isEqualTo(expected);
    agent.await("answered", l -> l.field("request").equals(request) && l.field("terminal").equals("done"), Duration.ofSeconds(5));
    assertThat(admin.get("/api/v1/gateway/requests/" + request).bodyAsJsonObject().getString("state")).isEqualTo("done");
  }

  /** {@code node coven-ssh-agent.js}: generates or reads its key, and runs as coven-agent.js does. */
  private static final class SshAgentProcess {

    private SshAgentProcess() {
    }

    private static List<String> command(Path keyFile, String... more) {
      List<String> command = new ArrayList<>(List.of("node", NodeAgentProcess.interopDir().resolve("coven-ssh-agent.js").toString(),
        "--key", keyFile.toString()));
      command.addAll(List.of(more));
      return command;
    }

    /** Generates the key (if missing) and returns what the agent printed: its key line and fingerprint. */
    static List<String> printKey(Path keyFile, String comment) throws IOException, InterruptedException {
      Process p = new ProcessBuilder(command(keyFile, "--print-key", "--comment", comment)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(out).isZero();
      return out.lines().toList();
    }

    static NodeAgentProcess start(Path keyFile, String agentId) {
      return NodeAgentProcess.launch(command(keyFile, "--address", "127.0.0.1:" + node.grpcPort(),
        "--proto", NodeAgentProcess.covenProto().toString(), "--agent-id", agentId, "--retry-ms", "300", "--retries", "100"));
    }
  }
}
