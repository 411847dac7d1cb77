package dev.conclave.e2e.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestTls;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./conclave cluster 2 --tls} as a user runs it: a throwaway CA and cluster CA made with
 * keytool, both nodes serving TLS only and running their event bus over TLS with client
 * certificates. A grpc-js agent on node-1 (trusting the printed CA) answers a client on node-2: the
 * request and its events cross the event bus between the nodes, over TLS.
 */
class LocalClusterTlsIT {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String AGENT_ID = "cluster-tls-agent";

  @TempDir
  Path dir;

  @Test
  void twoNodesOverTlsCarryARequestFromOneNodeToAnAgentOnTheOther() throws Exception {
    NodeAgentProcess.checkPrerequisites();
    int base = dev.conclave.platform.testing.FreePorts.block(40);
    Path cluster = dir.resolve("cluster");
    ProcessBuilder pb = new ProcessBuilder("bash", ROOT.resolve("deploy/local-cluster.sh").toString(), "--base-port", String.valueOf(base),
        "--dir", cluster.toString(), "--tls", "2");
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    pb.environment().put("CONCLAVE_JAVA_OPTS", "-Xmx384m");
    pb.redirectError(dir.resolve("script.err").toFile());
    Process script = pb.start();
    List<String> out = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(script.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          out.add(line);
          if (line.startsWith("Session: ")) {
            ready.complete(null);
          }
        }
      } catch (IOException ignored) {
        // the script ended
      }
      ready.completeExceptionally(new AssertionError("the script ended before it was ready; stderr: " + read(dir.resolve("script.err"))));
    }, "local-cluster-tls-stdout");
    reader.setDaemon(true);
    reader.start();
    List<ProcessHandle> started = new ArrayList<>();
    Vertx vertx = Vertx.vertx();
    NodeAgentProcess agent = null;
    try {
      ready.get(6, TimeUnit.MINUTES);
      Path ca = cluster.resolve("tls/ca.pem");
      int grpc1 = base + 1;
      int grpc2 = base + 2;
      int http1 = base + 11;
      assertThat(out).contains("Agents: CONCLAVE_ENDPOINTS=127.0.0.1:" + grpc1 + ",127.0.0.1:" + grpc2 + " CONCLAVE_AGENT_TLS_CA_FILE=" + ca);
      assertThat(out).anySatisfy(line -> assertThat(line).startsWith("node-1").contains("https://127.0.0.1:" + http1));
      for (int i = 1; i <= 2; i++) {
        assertThat(read(cluster.resolve("node-" + i + ".log"))).as("node-" + i + "'s start-up")
            .contains("eventbus-tls=client-certificates").contains("tls: the gRPC and HTTP ports speak TLS only");
      }
      HttpResponse<String> health = HttpClient.newBuilder().sslContext(TestTls.trusting(ca)).build()
          .send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + http1 + "/health/ready")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);

      Map<String, String> db = Map.of("CONCLAVE_PG_URL", Files.readString(cluster.resolve("postgres.url")).lines().findFirst().orElseThrow(),
          "CONCLAVE_AUTH_SECRET", Files.readString(cluster.resolve("auth.secret")).trim());
      String agentToken = NodeProcess.cli(db, "token", "--new-agent", "cluster-tls", "--ttl", "1h");
      agent = NodeAgentProcess.launch(List.of("node", NodeAgentProcess.interopDir().resolve("coven-agent.js").toString(),
          "--address", "localhost:" + grpc1, "--proto", NodeAgentProcess.covenProto().toString(), "--agent-id", AGENT_ID,
          "--name", "grpc-js on node-1", "--heartbeat-ms", "1000"),
          Map.of("COVEN_AGENT_TOKEN", agentToken, "COVEN_TLS_CA_FILE", ca.toString()));
      agent.await("welcome", Duration.ofSeconds(60));

      String authorization = GrpcCalls.bearer(Files.readString(cluster.resolve("node-2/admin.token")).trim());
      try (GrpcCalls onNode2 = new GrpcCalls(vertx, "localhost", grpc2, TestTls.grpcClient(ca))) {
        String answer = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        // node-2 learns of the agent through the cluster: retry until it routes there
        while (answer == null && System.nanoTime() < deadline) {
          var sent = onNode2.unary(ClientServiceGrpcClient.SendMessage, ClientSendMessageRequest.newBuilder().setConversationKey(AGENT_ID)
              .setContent("echo across the cluster").setIdempotencyKey(UUID.randomUUID().toString()).build(), authorization);
          if (sent.status() != GrpcStatus.OK) {
            Thread.sleep(500);
            continue;
          }
          try (RequestFeed feed = RequestFeed.of(onNode2, authorization, AGENT_ID, sent.response().orElseThrow().getMessageId())) {
            List<ClientStreamEvent> events = feed.untilTerminal();
            answer = events.stream().filter(ClientStreamEvent::hasText).map(e -> e.getText().getContent()).collect(Collectors.joining());
          }
        }
        assertThat(answer).as("the agent on node-1 answered a client of node-2").isEqualTo("across the cluster");
      }
    } finally {
      if (agent != null) {
        agent.close();
      }
      vertx.close().await(10, TimeUnit.SECONDS);
      started.addAll(script.descendants().toList());
      script.toHandle().destroy();
      if (!script.waitFor(2, TimeUnit.MINUTES)) {
        script.descendants().forEach(ProcessHandle::destroyForcibly);
        script.destroyForcibly();
      }
    }
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (started.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(started).as("nothing the script started is left").noneMatch(ProcessHandle::isAlive);
  }


  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }
}
