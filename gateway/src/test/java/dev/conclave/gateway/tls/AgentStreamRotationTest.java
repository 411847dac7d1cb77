package dev.conclave.gateway.tls;

import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.testing.TestTls;
import dev.conclave.platform.tls.DevCertificates;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLSocket;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A certificate renewed under a running gateway: an agent stream opened over TLS before the renewal
 * stays on its connection and keeps getting work, while new connections are handed the new certificate.
 */
class AgentStreamRotationTest {

  private static final long WITHIN_MS = 60_000;

  @Test
  void anOpenAgentStreamOutlivesARenewal() throws Exception {
    DevCertificates certs = TestTls.fresh();
    TestNode.Builder builder = TestNode.builder().role(new GatewayRole());
    TestTls.nodeEnv(certs).forEach(builder::env);
    Vertx vertx = Vertx.vertx();
    try (TestNode node = builder.start();
         GrpcCalls agentSide = new GrpcCalls(vertx, "localhost", node.grpcPort(), TestTls.grpcClient(certs.caCert()))) {
      String token = GatewayFixture.await(node.runtime().context().tokens().issue(GatewayFixture.await(node.runtime().context().principals()
        .create(UUID.randomUUID(), PrincipalType.AGENT, "rotating", PrincipalStatus.APPROVED, List.of(), Optional.empty())),
        Duration.ofHours(1))).token();
      Certificate before = TestTls.certificates(certs.nodeCert()).get(0);
      try (RawAgent agent = RawAgent.open(agentSide.client(), agentSide.address(), token)) {
        agent.register(RawAgent.registration("rotating"));
        HttpConnection connection = agent.connection();
        String first = send(vertx, node, certs, "before the renewal");
        assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(first);
        // an agent gets one request at a time: finish this one so that the next can come
        agent.respond(first, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));

        certs.renewNode(List.of("localhost", "127.0.0.1"));
        Certificate after = TestTls.certificates(certs.nodeCert()).get(0);
        assertThat(after).isNotEqualTo(before);
        assertThat(servedWithin(certs, node.grpcPort(), after)).as("new connections to the gRPC port get the renewed certificate").isTrue();

        String second = send(vertx, node, certs, "after the renewal");
        var work = agent.next();
        assertThat(work.getSendMessage().getRequestId()).isEqualTo(second);
        assertThat(work.getSendMessage().getContent()).isEqualTo("after the renewal");
        assertThat(agent.ended()).as("the stream opened before the renewal is still open").isFalse();
        assertThat(agent.connection()).as("and on the same connection").isSameAs(connection);
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** Sends a message to the agent as the admin, over a new TLS connection; returns its request id. */
  private static String send(Vertx vertx, TestNode node, DevCertificates certs, String content) {
    try (GrpcCalls fresh = new GrpcCalls(vertx, "localhost", node.grpcPort(), TestTls.grpcClient(certs.caCert()))) {
      return new Clients(fresh, node.adminToken()).sendOk("rotating", content, UUID.randomUUID().toString());
    }
  }

  private static boolean servedWithin(DevCertificates certs, int port, Certificate expected) throws Exception {
    long deadline = System.currentTimeMillis() + WITHIN_MS;
    while (System.currentTimeMillis() < deadline) {
      try (SSLSocket socket = (SSLSocket) TestTls.trusting(certs.caCert()).getSocketFactory().createSocket("localhost", port)) {
        socket.setSoTimeout(20_000);
        socket.startHandshake();
        if (socket.getSession().getPeerCertificates()[0].equals(expected)) {
          return true;
        }
      }
      Thread.sleep(500);
    }
    return false;
  }
}
