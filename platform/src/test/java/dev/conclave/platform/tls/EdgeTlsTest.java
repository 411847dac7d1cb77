package dev.conclave.platform.tls;

import com.google.protobuf.Empty;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.server.SessionCookie;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.testing.TestTls;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node with {@code CONCLAVE_TLS_CERT_FILE} and {@code CONCLAVE_TLS_KEY_FILE} set: both ports present
 * that certificate, the gRPC port negotiates HTTP/2 by ALPN and the HTTP port HTTP/1.1, an
 * authenticated call works over each, a plaintext connection to either gets no answer, and the
 * console's session cookie carries {@code Secure}.
 */
class EdgeTlsTest {

  private static TestNode node;
  private static Vertx vertx;
  private static dev.conclave.platform.tls.DevCertificates certs;

  @BeforeAll
  static void start() {
    certs = TestTls.shared();
    TestNode.Builder builder = TestNode.builder().role(new EchoRole()).env("CONCLAVE_HTTP_HEADER_SECONDS", "2");
    TestTls.nodeEnv(certs).forEach(builder::env);
    node = builder.start();
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void bothPortsPresentTheCertificateTheGrpcPortOffersHttp2AndTheHttpPortHttp11() throws Exception {
    try (SSLSocket grpc = handshake(node.grpcPort(), "h2", "http/1.1")) {
      assertThat(grpc.getApplicationProtocol()).isEqualTo("h2");
      assertThat(pem(grpc)).isEqualTo(TestTls.certificates(certs.nodeCert()).get(0));
    }
    try (SSLSocket http = handshake(node.httpPort(), "h2", "http/1.1")) {
      assertThat(http.getApplicationProtocol()).as("no ALPN on the HTTP port: HTTP/1.1, where its deadlines hold").isIn("", null);
      assertThat(pem(http)).isEqualTo(TestTls.certificates(certs.nodeCert()).get(0));
    }
  }

  @Test
  void anAuthenticatedCallWorksOverEachPort() throws Exception {
    GrpcCalls grpc = new GrpcCalls(vertx, "localhost", node.grpcPort(), tlsClient());
    var me = grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(node.adminToken()));
    assertThat(me.status()).as(me.message()).isEqualTo(GrpcStatus.OK);
    assertThat(me.response().orElseThrow().getPrincipalId()).isNotEmpty();

    HttpResponse<String> whoami = https().send(HttpRequest.newBuilder(uri("/api/v1/whoami"))
      .header("authorization", "Bearer " + node.adminToken()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(whoami.statusCode()).as(whoami.body()).isEqualTo(200);
    assertThat(whoami.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
  }

  @Test
  void aPlaintextConnectionToEitherPortGetsNoAnswer() throws Exception {
    assertThat(plaintext(node.httpPort(), "GET /health/live HTTP/1.1\r\nhost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII)))
      .as("what the HTTP port sent back to a plaintext request").doesNotContain("HTTP/1.1");
    byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    assertThat(plaintext(node.grpcPort(), preface)).as("what the gRPC port sent back to an HTTP/2 preface").doesNotContain("HTTP");
  }

  @Test
  void theHeaderDeadlineHoldsOnTheTlsPort() throws Exception {
    try (SSLSocket socket = handshake(node.httpPort(), "http/1.1")) {
      OutputStream out = socket.getOutputStream();
      out.write("GET /health/live HTTP/1.1\r\nhost: localhost\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      long start = System.nanoTime();
      InputStream in = socket.getInputStream();
      socket.setSoTimeout(250);
      StringBuilder answer = new StringBuilder();
      byte[] buffer = new byte[4096];
      // a header byte every 250 ms, well inside the idle timeout: only the deadline (2 s) can end it
      for (int i = 0; i < 80 && !answer.toString().contains("408"); i++) {
        try {
          out.write('x');
          out.flush();
        } catch (java.io.IOException closed) {
          break;
        }
        try {
          int n = in.read(buffer);
          if (n < 0) {
            break;
          }
          answer.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
        } catch (java.net.SocketTimeoutException more) {
          // nothing yet
        }
      }
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      assertThat(answer.toString()).startsWith("HTTP/1.1 408");
      assertThat(tookMs).as("cut at the header deadline, not the idle timeout").isLessThan(15_000);
    }
  }

  @Test
  void theSessionCookieIsSecureAndOnlyTheHttpsOriginCounts() throws Exception {
    String body = new JsonObject().put("token", node.adminToken()).encode();
    HttpResponse<String> own = https().send(HttpRequest.newBuilder(uri("/auth/session"))
      .header("content-type", "application/json").header("origin", "https://localhost:" + node.httpPort())
      .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
    String cookie = own.headers().firstValue("set-cookie").orElseThrow();
    assertThat(cookie).startsWith(SessionCookie.NAME + "=").contains("; Secure");

    HttpResponse<String> downgraded = https().send(HttpRequest.newBuilder(uri("/auth/session"))
      .header("content-type", "application/json").header("origin", "http://localhost:" + node.httpPort())
      .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(downgraded.statusCode()).as("an http:// page is not the node's own on a TLS port").isNotEqualTo(200);
    assertThat(downgraded.headers().firstValue("set-cookie")).isEmpty();
  }

  static HttpClientOptions tlsClient() {
    return TestTls.grpcClient(TestTls.shared().caCert());
  }

  private static HttpClient https() {
    return HttpClient.newBuilder().sslContext(TestTls.trusting(certs.caCert())).connectTimeout(Duration.ofSeconds(10)).build();
  }

  private static URI uri(String path) {
    return URI.create("https://localhost:" + node.httpPort() + path);
  }

  /** A finished handshake with the node's port, trusting the test CA, offering {@code protocols} by ALPN. */
  static SSLSocket handshake(int port, String... protocols) throws Exception {
    SSLSocket socket = (SSLSocket) TestTls.trusting(certs.caCert()).getSocketFactory().createSocket("localhost", port);
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setApplicationProtocols(protocols);
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    socket.setSSLParameters(parameters);
    socket.setSoTimeout(20_000);
    socket.startHandshake();
    return socket;
  }

  private static java.security.cert.Certificate pem(SSLSocket socket) throws Exception {
    return socket.getSession().getPeerCertificates()[0];
  }

  /** What a port sends back to {@code request} sent in plaintext, until it closes the connection (within 20 s). */
  private static String plaintext(int port, byte[] request) throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket.setSoTimeout(20_000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      InputStream in = socket.getInputStream();
      java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
      byte[] buffer = new byte[4096];
      try {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          answer.write(buffer, 0, n);
        }
      } catch (java.net.SocketException reset) {
        // a reset ends the connection as well
      }
      return answer.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
