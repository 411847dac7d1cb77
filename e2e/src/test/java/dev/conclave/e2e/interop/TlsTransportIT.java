package dev.conclave.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestTls;
import dev.conclave.platform.tls.DevCertificates;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The node jar as a real process with {@code CONCLAVE_TLS_CERT_FILE} and {@code CONCLAVE_TLS_KEY_FILE}:
 * a grpc-js agent ({@code coven-agent.js} with {@code grpc.credentials.createSsl}) registers over TLS
 * and answers a Java client's message and a grpc-js client's ({@code coven-client.js}) over TLS; a
 * plaintext connection to either port is refused;
 * and a certificate renewed under the running node reaches new connections while the agent's open
 * stream goes on working, never reconnecting.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TlsTransportIT {

  private static final String AGENT_ID = "tls-grpc-js-agent";
  private static final List<String> NAMES = List.of("localhost", "127.0.0.1");

  private static Path root;
  private static DevCertificates certs;
  private static NodeProcess node;
  private static NodeAgentProcess agent;
  private static Vertx vertx;
  private static GrpcCalls grpc;
  private static String authorization;
  private static String adminToken;

  @BeforeAll
  static void start() throws Exception {
    NodeAgentProcess.checkPrerequisites();
    root = Files.createTempDirectory("conclave-tls-e2e");
    certs = DevCertificates.generate(root.resolve("tls"), NAMES);
    Path data = root.resolve("data");
    node = NodeProcess.start(data, Map.of("CONCLAVE_TLS_CERT_FILE", certs.nodeCert().toString(),
        "CONCLAVE_TLS_KEY_FILE", certs.nodeKey().toString()));
    awaitLog("ready node=", Duration.ofSeconds(120));
    vertx = Vertx.vertx();
    grpc = new GrpcCalls(vertx, "localhost", node.grpcPort(), TestTls.grpcClient(certs.caCert()));
    adminToken = Files.readString(data.resolve("admin.token")).trim();
    authorization = GrpcCalls.bearer(adminToken);
    String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "tls-interop", "--ttl", "1h");
    agent = NodeAgentProcess.launch(List.of("node", NodeAgentProcess.interopDir().resolve("coven-agent.js").toString(),
        "--address", "localhost:" + node.grpcPort(), "--proto", NodeAgentProcess.covenProto().toString(),
        "--agent-id", AGENT_ID, "--name", "grpc-js over TLS", "--heartbeat-ms", "1000"),
        Map.of("COVEN_AGENT_TOKEN", token, "COVEN_TLS_CA_FILE", certs.caCert().toString()));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (agent != null) {
        agent.close();
      }
      if (grpc != null) {
        grpc.close();
      }
      if (vertx != null) {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    } finally {
      if (node != null) {
        if (node.alive()) {
          node.terminate(Duration.ofSeconds(30));
        }
        node.close();
      }
      if (root != null) {
        TestDatabase.deleteTree(root);
      }
    }
  }

  @Test
  @Order(1)
  void aGrpcJsAgentRegistersOverTlsAndAnswersAClientOverTls() {
    NodeAgentProcess.Line welcome = agent.await("welcome", Duration.ofSeconds(60));
    assertThat(welcome.field("agent")).isEqualTo(AGENT_ID);
    assertThat(echo("hello over tls")).isEqualTo("hello over tls");
  }

  @Test
  @Order(2)
  void aGrpcJsClientSendsAndFollowsOverTls() throws Exception {
    ProcessBuilder pb = new ProcessBuilder("node", NodeAgentProcess.interopDir().resolve("coven-client.js").toString(),
        "--address", "localhost:" + node.grpcPort(), "--proto", NodeAgentProcess.covenProto().toString(),
        "--conversation", AGENT_ID, "--content", "echo from grpc-js").directory(NodeAgentProcess.interopDir().toFile())
        .redirectErrorStream(true);
    pb.environment().put("COVEN_TOKEN", adminToken);
    pb.environment().put("COVEN_TLS_CA_FILE", certs.caCert().toString());
    Process client = pb.start();
    String output = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(client.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(client.exitValue()).as(output).isZero();
    assertThat(output).contains("coven-client: done text=\"from grpc-js\"");
  }

  @Test
  @Order(3)
  void aPlaintextConnectionToEitherPortIsRefused() throws Exception {
    assertThat(plaintext(node.httpPort(), "GET /health/live HTTP/1.1\r\nhost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII)))
        .as("the HTTP port's answer to plaintext").doesNotContain("HTTP/1.1 200");
    assertThat(plaintext(node.grpcPort(), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII)))
        .as("the gRPC port's answer to an HTTP/2 preface in plaintext").doesNotContain("HTTP");
  }

  @Test
  @Order(4)
  void aRenewedCertificateReachesNewConnectionsWhileTheAgentStreamGoesOn() throws Exception {
    Certificate before = TestTls.certificates(certs.nodeCert()).get(0);
    assertThat(presented(node.grpcPort())).isEqualTo(before);
    int welcomes = agent.lines("welcome").size();

    certs.renewNode(NAMES);
    Certificate after = TestTls.certificates(certs.nodeCert()).get(0);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!presented(node.grpcPort()).equals(after) && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
    assertThat(presented(node.grpcPort())).as("new connections to the gRPC port, within a minute").isEqualTo(after);
    assertThat(presented(node.httpPort())).as("and to the HTTP port").isEqualTo(after);
    assertThat(node.logText()).contains("certificate renewed, new connections use it");

    try (GrpcCalls fresh = new GrpcCalls(vertx, "localhost", node.grpcPort(), TestTls.grpcClient(certs.caCert()))) {
      assertThat(echo(fresh, "after the renewal")).as("a client on a new connection, the agent on its old stream")
          .isEqualTo("after the renewal");
    }
    assertThat(agent.lines("welcome")).as("the agent never had to reconnect").hasSize(welcomes);
  }

  private static String echo(String words) {
    return echo(grpc, words);
  }

  private static String echo(GrpcCalls calls, String words) {
    var sent = calls.unary(dev.conclave.proto.coven.ClientServiceGrpcClient.SendMessage, ClientSendMessageRequest.newBuilder()
        .setConversationKey(AGENT_ID).setContent("echo " + words).setIdempotencyKey(UUID.randomUUID().toString()).build(), authorization);
    assertThat(sent.status()).as(sent.message()).isEqualTo(GrpcStatus.OK);
    try (RequestFeed feed = RequestFeed.of(calls, authorization, AGENT_ID, sent.response().orElseThrow().getMessageId())) {
      List<ClientStreamEvent> events = feed.untilTerminal();
      assertThat(events.get(events.size() - 1).hasDone()).as("%s", events).isTrue();
      return events.stream().filter(ClientStreamEvent::hasText).map(e -> e.getText().getContent()).collect(Collectors.joining());
    }
  }

  /** The certificate a new TLS connection to {@code port} is handed. */
  private static Certificate presented(int port) throws Exception {
    try (SSLSocket socket = (SSLSocket) TestTls.trusting(certs.caCert()).getSocketFactory().createSocket("localhost", port)) {
      socket.setSoTimeout(20_000);
      socket.startHandshake();
      return socket.getSession().getPeerCertificates()[0];
    }
  }

  private static String plaintext(int port, byte[] request) throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      byte[] buffer = new byte[4096];
      try {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          answer.write(buffer, 0, n);
        }
      } catch (java.net.SocketException reset) {
        // a reset ends it too
      }
      return answer.toString(StandardCharsets.ISO_8859_1);
    }
  }

  private static void awaitLog(String text, Duration limit) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!node.logText().contains(text)) {
      if (!node.alive()) {
        throw new IllegalStateException("node exited before ready; log:\n" + node.logText());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("node not ready within " + limit.toSeconds() + " s; log:\n" + node.logText());
      }
      Thread.sleep(200);
    }
  }
}
