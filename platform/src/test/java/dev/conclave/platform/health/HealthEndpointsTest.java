package dev.conclave.platform.health;

import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
import io.vertx.grpc.health.v1.HealthCheckRequest;
import io.vertx.grpc.health.v1.HealthCheckResponse;
import io.vertx.grpc.reflection.v1.ServerReflectionRequest;
import io.vertx.grpc.reflection.v1.ServerReflectionResponse;
import io.vertx.grpc.reflection.v1.ServiceResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class HealthEndpointsTest {

  private static final ServiceMethod<HealthCheckResponse, HealthCheckRequest> HEALTH_CHECK = ServiceMethod.client(
    ServiceName.create("grpc.health.v1.Health"), "Check", GrpcMessageEncoder.encoder(), GrpcMessageDecoder.decoder(HealthCheckResponse.newBuilder()));
  private static final ServiceMethod<ServerReflectionResponse, ServerReflectionRequest> REFLECTION = ServiceMethod.client(
    ServiceName.create("grpc.reflection.v1.ServerReflection"), "ServerReflectionInfo", GrpcMessageEncoder.encoder(),
    GrpcMessageDecoder.decoder(ServerReflectionResponse.newBuilder()));

  private static Vertx vertx;
  private static TestNode node;
  private static GrpcCalls grpc;
  private static WebClient http;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole()).start();
    vertx = Vertx.vertx();
    grpc = new GrpcCalls(vertx, node.grpcPort());
    http = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    grpc.close();
    http.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void liveAndReadyAnswerWithoutAToken() {
    assertThat(get("/health/live").statusCode()).isEqualTo(200);
    HttpResponse<Buffer> ready = get("/health/ready");
    assertThat(ready.statusCode()).isEqualTo(200);
    JsonObject body = ready.bodyAsJsonObject();
    assertThat(body.getString("outcome")).isEqualTo("UP");
    assertThat(body.getJsonArray("checks").stream().map(c -> ((JsonObject) c).getString("id")).toList())
      .contains("database", "verticles");
  }

  @Test
  void readyFollowsTheDatabaseDownAndBackUp() throws Exception {
    String db = node.database().database();
    try {
      TestDatabase.execute(node.database().withDatabase("postgres"), "ALTER DATABASE " + db + " WITH ALLOW_CONNECTIONS false");
      TestDatabase.execute(node.database().withDatabase("postgres"),
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db + "'");
      assertThat(eventually(503)).as("ready while the database refuses connections").isEqualTo(503);
      assertThat(get("/health/live").statusCode()).as("live is not about the database").isEqualTo(200);
    } finally {
      TestDatabase.execute(node.database().withDatabase("postgres"), "ALTER DATABASE " + db + " WITH ALLOW_CONNECTIONS true");
    }
    assertThat(eventually(200)).as("ready once the database is back").isEqualTo(200);
  }

  @Test
  void notReadyWhenTheDatabaseRefusesNewConnectionsWhilePooledOnesStillWork() throws Exception {
    // what `postgres` stopping the node's server looked like: open connections answer, new ones are refused
    String db = node.database().database();
    assertThat(eventually(200)).as("ready, with a pooled connection open").isEqualTo(200);
    try {
      TestDatabase.execute(node.database().withDatabase("postgres"), "ALTER DATABASE " + db + " WITH ALLOW_CONNECTIONS false");
      assertThat(eventually(503)).as("ready while new connections are refused").isEqualTo(503);
    } finally {
      TestDatabase.execute(node.database().withDatabase("postgres"), "ALTER DATABASE " + db + " WITH ALLOW_CONNECTIONS true");
    }
    assertThat(eventually(200)).as("ready once new connections are taken again").isEqualTo(200);
  }

  @Test
  void metricsArePrometheusTextWithJvmAndVertxMetrics() {
    HttpResponse<Buffer> metrics = get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.getHeader("content-type")).startsWith("text/plain");
    assertThat(metrics.bodyAsString()).contains("jvm_memory_used_bytes", "vertx_http_server");
  }

  @Test
  void grpcHealthReportsServingForTheServerAndItsServices() {
    assertThat(health("").response().orElseThrow().getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(health("coven.ClientService").response().orElseThrow().getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(health("no.such.Service").status()).isEqualTo(GrpcStatus.NOT_FOUND);
  }

  @Test
  void reflectionListsTheServices() throws Exception {
    ServerReflectionResponse response = grpc.open(REFLECTION, null)
      .compose(request -> request.send(ServerReflectionRequest.newBuilder().setListServices("").build()))
      .compose(r -> r.last())
      .await(10, TimeUnit.SECONDS);
    List<String> names = response.getListServicesResponse().getServiceList().stream().map(ServiceResponse::getName).toList();
    assertThat(names).contains("coven.ClientService", "grpc.health.v1.Health");
  }

  private static GrpcCalls.Outcome<HealthCheckResponse> health(String service) {
    return grpc.unary(HEALTH_CHECK, HealthCheckRequest.newBuilder().setService(service).build(), null);
  }

  private static int eventually(int wanted) throws InterruptedException {
    int status = -1;
    for (int i = 0; i < 50 && status != wanted; i++) {
      status = get("/health/ready").statusCode();
      if (status != wanted) {
        Thread.sleep(200);
      }
    }
    return status;
  }

  private static HttpResponse<Buffer> get(String path) {
    try {
      return http.get(node.httpPort(), "127.0.0.1", path).send().await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
