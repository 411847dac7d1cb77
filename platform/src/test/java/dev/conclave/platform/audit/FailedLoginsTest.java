package dev.conclave.platform.audit;

import com.google.protobuf.Empty;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.RawHttp;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.sqlclient.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Failed authentications are work anyone can make a node do: they are counted and sampled into the
 * audit log, not written one row each (issue 40, finding 5: 600 junk tokens wrote 600 rows in 4.4 s).
 */
class FailedLoginsTest {

  private static final int WINDOW_SECONDS = 3;

  private static Vertx vertx;
  private static TestNode node;
  private static GrpcCalls grpc;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole())
      .env("CONCLAVE_AUTH_FAILURE_WINDOW_SECONDS", String.valueOf(WINDOW_SECONDS))
      .env("CONCLAVE_AUTH_FAILURE_SOURCES", "2")
      .start();
    vertx = Vertx.vertx();
    grpc = new GrpcCalls(vertx, node.grpcPort());
  }

  @AfterAll
  static void stop() throws Exception {
    grpc.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @Test
  void failuresAreCountedAndSampledPerSourceAndReason() throws Exception {
    for (int i = 0; i < 100; i++) {
      assertThat(grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), "Bearer junk." + i + ".token").status())
        .isEqualTo(GrpcStatus.UNAUTHENTICATED);
    }
    for (int i = 0; i < 20; i++) {
      assertThat(RawHttp.send(node.httpPort(), "GET", "/api/v1/whoami", Map.of("authorization", "Bearer junk." + i), null, 10_000).status())
        .isEqualTo(401);
    }
    for (int i = 0; i < 10; i++) {
      grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), null);
      grpc.unary(ClientServiceGrpcClient.GetMe, Empty.getDefaultInstance(), "Basic YWRtaW46YWRtaW4=");
    }
    // the first of each source and reason is written at once
    await(node.runtime().context().edge().audit().flush());
    List<Row> first = rows();
    assertThat(first).extracting(r -> r.getString("detail")).contains("token_invalid", "token_missing", "token_malformed");
    assertThat(first.size()).as("rows written at once for 140 failures").isLessThanOrEqualTo(9);
    Row invalid = first.stream().filter(r -> r.getString("detail").equals("token_invalid")).findFirst().orElseThrow();
    assertThat(invalid.getString("target")).isEqualTo("/coven.ClientService/GetMe");
    assertThat(invalid.getString("remote")).isEqualTo("127.0.0.1");
    // two pairs of source and reason are kept apart per window: the third reason is counted under source "*"
    assertThat(first).anySatisfy(r -> assertThat(r.getString("remote")).isEqualTo("*"));

    // once the windows have ended the rest is written, with counts: nothing is lost
    Thread.sleep(WINDOW_SECONDS * 1000L + 1500);
    await(node.runtime().context().edge().audit().flush());
    List<Row> all = rows();
    assertThat(all.size()).as("rows for 140 failures").isLessThanOrEqualTo(18);
    assertThat(all.stream().mapToInt(r -> r.getInteger("count")).sum()).isEqualTo(140);
    assertThat(all.stream().filter(r -> r.getString("detail").equals("token_invalid")).mapToInt(r -> r.getInteger("count")).sum())
      .isEqualTo(120);

    // and every one is counted as it happens
    assertThat(node.runtime().context().metrics().find(MetricNames.AUTH_FAILURES).tag("code", "token_invalid").counter().count())
      .isEqualTo(120.0);
  }

  private static List<Row> rows() {
    List<Row> out = new ArrayList<>();
    await(node.runtime().context().pool().query("SELECT target, detail, remote, count FROM auth.audit WHERE action = 'auth.failed' ORDER BY id")
      .execute()).forEach(out::add);
    return out;
  }
}
