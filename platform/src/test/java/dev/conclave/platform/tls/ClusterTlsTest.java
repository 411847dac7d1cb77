package dev.conclave.platform.tls;

import dev.conclave.platform.cluster.VertxBootstrap;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.metrics.NodeMetrics;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestTls;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The clustered event bus with {@code CONCLAVE_CLUSTER_TLS_*}: two members exchange messages over
 * TLS with each other's cluster certificates, and a process that reaches a member's event-bus port
 * without a certificate from the cluster CA (none, another CA's, or plaintext) fails at the handshake
 * and never gets to speak the event-bus protocol.
 */
class ClusterTlsTest {

  private static final String SECRET = "cluster-tls-test-secret-0123456789abcdef";
  private static DevCertificates certs;
  private static Vertx a;
  private static Vertx b;
  private static int eventBusPortOfA;

  @BeforeAll
  static void start() throws Exception {
    certs = TestTls.shared();
    int portA = FreePorts.next();
    int portB = FreePorts.next();
    eventBusPortOfA = FreePorts.next();
    String members = "127.0.0.1:" + portA + ",127.0.0.1:" + portB;
    CompletableFuture<Vertx> startA = CompletableFuture.supplyAsync(() -> member(members, portA, eventBusPortOfA));
    CompletableFuture<Vertx> startB = CompletableFuture.supplyAsync(() -> member(members, portB, FreePorts.next()));
    a = startA.get(120, TimeUnit.SECONDS);
    b = startB.get(120, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    for (Vertx v : new Vertx[] {a, b}) {
      if (v != null) {
        v.close().await(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void membersExchangeMessagesOverTls() throws Exception {
    b.eventBus().<String>consumer("cluster-tls-test.echo", m -> m.reply("echo:" + m.body()))
      .completion().await(30, TimeUnit.SECONDS);
    // the consumer's registration reaches A through Hazelcast; retry until it is known there
    String answer = null;
    long deadline = System.currentTimeMillis() + 60_000;
    while (answer == null && System.currentTimeMillis() < deadline) {
      try {
        answer = a.eventBus().<String>request("cluster-tls-test.echo", "hello", new DeliveryOptions().setSendTimeout(10_000))
          .await(20, TimeUnit.SECONDS).body();
      } catch (Exception notYet) {
        Thread.sleep(500);
      }
    }
    assertThat(answer).isEqualTo("echo:hello");
  }

  @Test
  void aProcessWithTheClusterCertificateCompletesTheHandshake() throws Exception {
    try (SSLSocket socket = connect(TestTls.context(certs.clusterCaCert(), certs.clusterCert(), certs.clusterKey()))) {
      assertThat(socket.getSession().getPeerCertificates()[0]).isEqualTo(TestTls.certificates(certs.clusterCert()).get(0));
      assertThat(stillOpenAfterAByte(socket)).as("a member keeps a connection from a certified peer").isTrue();
    }
  }

  @Test
  void aProcessWithoutACertificateIsRefusedAtTheHandshake() {
    assertThatThrownBy(() -> {
      try (SSLSocket socket = connect(TestTls.trusting(certs.clusterCaCert()))) {
        // TLS 1.3 reports the server's refusal of a missing client certificate on the first read
        assertThat(stillOpenAfterAByte(socket)).isFalse();
        throw new IOException("closed without a handshake error");
      }
    }).satisfies(ClusterTlsTest::refusedByTheServer);
  }

  @Test
  void aProcessWithAnotherCasCertificateIsRefusedAtTheHandshake() {
    DevCertificates stranger = TestTls.fresh();
    assertThatThrownBy(() -> {
      try (SSLSocket socket = connect(TestTls.context(certs.clusterCaCert(), stranger.clusterCert(), stranger.clusterKey()))) {
        assertThat(stillOpenAfterAByte(socket)).isFalse();
        throw new IOException("closed without a handshake error");
      }
    }).satisfies(ClusterTlsTest::refusedByTheServer);
  }

  /**
   * The server's refusal: its TLS alert, read as an SSLException, or, when the alert and the close
   * race the client's first byte (a loaded machine), that byte's write failing on the connection the
   * server tore down ("Broken pipe", "Connection reset"). Never a connection that stayed open.
   */
  private static void refusedByTheServer(Throwable thrown) {
    if (thrown instanceof javax.net.ssl.SSLException) {
      return;
    }
    assertThat(thrown).isInstanceOf(java.net.SocketException.class);
    assertThat(thrown.getMessage()).containsAnyOf("Broken pipe", "Connection reset");
  }

  @Test
  void aPlaintextPeerGetsNothingBack() throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", eventBusPortOfA), 10_000);
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      // the start of an event-bus frame: a length, then the wire codec's bytes
      out.write(new byte[] {0, 0, 0, 16, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
      out.flush();
      InputStream in = socket.getInputStream();
      int first;
      try {
        first = in.read();
      } catch (java.net.SocketException reset) {
        first = -1;
      }
      // a TLS server answers garbage with an alert record (content type 21) or closes
      assertThat(first).isIn(-1, 21);
    }
  }

  private static SSLSocket connect(SSLContext context) throws IOException {
    SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", eventBusPortOfA);
    socket.setSoTimeout(20_000);
    socket.startHandshake();
    return socket;
  }

  /** Sends one byte (an incomplete event-bus frame) and reads: true if the member neither refused nor closed within 2 s. */
  private static boolean stillOpenAfterAByte(SSLSocket socket) throws IOException {
    socket.getOutputStream().write(0);
    socket.getOutputStream().flush();
    socket.setSoTimeout(2_000);
    try {
      return socket.getInputStream().read() >= 0;
    } catch (java.net.SocketTimeoutException silent) {
      return true;
    }
  }

  private static Vertx member(String members, int port, int eventBusPort) {
    Map<String, String> env = new HashMap<>(Map.of("CONCLAVE_CLUSTER_MEMBERS", members, "CONCLAVE_CLUSTER_HOST", "127.0.0.1",
      "CONCLAVE_CLUSTER_PORT", Integer.toString(port), "CONCLAVE_EVENTBUS_PORT", Integer.toString(eventBusPort),
      "CONCLAVE_AUTH_SECRET", SECRET));
    env.put("CONCLAVE_CLUSTER_TLS_CERT_FILE", certs.clusterCert().toString());
    env.put("CONCLAVE_CLUSTER_TLS_KEY_FILE", certs.clusterKey().toString());
    env.put("CONCLAVE_CLUSTER_TLS_CA_FILE", certs.clusterCaCert().toString());
    try {
      // on a pool thread of supplyAsync: Await blocks as a managed blocker, so the other member's start still runs
      return dev.conclave.platform.testing.Await.await(VertxBootstrap.create(ConclaveConfig.from(env), new NodeMetrics()),
        java.time.Duration.ofSeconds(120));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
