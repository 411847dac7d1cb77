package dev.conclave.platform.tls;

import com.google.protobuf.Empty;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.platform.testing.TestTls;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code CONCLAVE_TLS_CLIENT_CA_FILE}: the gRPC port takes only connections presenting a certificate
 * from those CAs (and the call still needs its token); the HTTP port, where browsers come, asks for none.
 */
class ClientCertificateTest {

  private static TestNode node;
  private static Vertx vertx;
  private static DevCertificates certs;

  @BeforeAll
  static void start() {
    certs = TestTls.shared();
    TestNode.Builder builder = TestNode.builder().role(new EchoRole()).env("CONCLAVE_TLS_CLIENT_CA_FILE", certs.caCert().toString());
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
  void aGrpcClientWithTheCertificateIsServedAndItsTokenStillCounts() {
    HttpClientOptions withCertificate = EdgeTlsTest.tlsClient()
      .setKeyCertOptions(new PemKeyCertOptions().setCertPath(certs.clientCert().toString()).setKeyPath(certs.clientKey().toString()));
    GrpcCalls grpc = new GrpcCalls(vertx, "localhost", node.grpcPort(), withCertificate);
    assertThat(grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(node.adminToken())).status())
      .isEqualTo(GrpcStatus.OK);
    assertThat(grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), null).status())
      .as("a certificate is no credential").isEqualTo(GrpcStatus.UNAUTHENTICATED);
  }

  @Test
  void aGrpcClientWithoutACertificateOrWithAStrangersIsRefused() {
    GrpcCalls none = new GrpcCalls(vertx, "localhost", node.grpcPort(), EdgeTlsTest.tlsClient());
    assertThatThrownBy(() -> none.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(node.adminToken())))
      .hasMessageContaining("GetMe failed");
    DevCertificates stranger = TestTls.fresh();
    GrpcCalls foreign = new GrpcCalls(vertx, "localhost", node.grpcPort(), EdgeTlsTest.tlsClient()
      .setKeyCertOptions(new PemKeyCertOptions().setCertPath(stranger.clientCert().toString()).setKeyPath(stranger.clientKey().toString())));
    assertThatThrownBy(() -> foreign.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), GrpcCalls.bearer(node.adminToken())))
      .hasMessageContaining("GetMe failed");
  }

  @Test
  void theHttpPortAsksBrowsersForNoCertificate() throws Exception {
    HttpResponse<String> live = HttpClient.newBuilder().sslContext(TestTls.trusting(certs.caCert())).build()
      .send(HttpRequest.newBuilder(URI.create("https://localhost:" + node.httpPort() + "/health/live")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(live.statusCode()).isEqualTo(200);
  }
}
