package dev.conclave.platform.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.conclave.platform.testing.TestNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One HTTP/2 connection to the gRPC port carries more than 1,000 calls at once (issue 45). The node
 * allowed 1,000 streams per connection: a client that multiplexes (a process hosting many agents, a
 * proxy) had call 1,001 wait in its own queue, with no error, until another ended. What bounds one
 * principal's calls is {@code CONCLAVE_MAX_CALLS_PER_PRINCIPAL}, answered RESOURCE_EXHAUSTED.
 */
class StreamsPerConnectionTest {

  private static final int CALLS = 1_500;

  @Test
  void oneConnectionCarriesMoreThanAThousandCallsAtOnce() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (TestNode node = TestNode.builder().role(new EchoRole()).start()) {
      OneConnection connection = new OneConnection(vertx, node);
      for (int i = 0; i < CALLS; i++) {
        connection.hold();
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (connection.open.get() < CALLS && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(connection.open.get()).as("calls with a stream on the one connection").isEqualTo(CALLS);
      assertThat(connection.connections.get()).as("connections opened").isEqualTo(1);
      connection.close();
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /**
   * A connection carries one stream more than a principal may have calls: of 51 calls held open on
   * one connection by a principal allowed 50, one reaches the node and is refused, where the client
   * sees it (RESOURCE_EXHAUSTED), instead of waiting in the client for a stream.
   */
  @Test
  void aPrincipalsCallOverItsLimitIsRefusedNotQueued() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (TestNode node = TestNode.builder().role(new EchoRole()).env("CONCLAVE_MAX_CALLS_PER_PRINCIPAL", "50").start()) {
      OneConnection connection = new OneConnection(vertx, node);
      for (int i = 0; i < 51; i++) {
        connection.hold();
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (connection.answers.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(connection.answers).as("grpc-status of the calls the node answered").containsExactly("8");
      connection.close();
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static String firstOf(String a, String b) {
    return a != null ? a : b;
  }

  /** One HTTP/2 connection to the node's gRPC port, on which calls are held open. */
  private static final class OneConnection {
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger open = new AtomicInteger();
    final List<String> answers = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<HttpClientRequest> requests = java.util.Collections.synchronizedList(new ArrayList<>());
    final HttpClient client;
    final RequestOptions call;

    OneConnection(Vertx vertx, TestNode node) {
      client = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
        .with(new PoolOptions().setHttp2MaxSize(1))
        .withConnectHandler(c -> connections.incrementAndGet())
        .build();
      call = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(node.grpcPort())
        .setURI("/coven.ClientService/GetMe").putHeader("content-type", "application/grpc").putHeader("te", "trailers")
        .putHeader("authorization", "Bearer " + node.adminToken());
    }

    /** A unary call whose message never comes: the node holds it open, and the client its stream. */
    void hold() {
      // the pool hands out a request only once the connection has a stream for it
      client.request(call).compose(req -> {
        requests.add(req);
        req.response().compose(resp -> resp.end().map(v -> firstOf(resp.getHeader("grpc-status"), resp.trailers().get("grpc-status"))))
          .onSuccess(answers::add);
        return req.sendHead();
      }).onSuccess(v -> open.incrementAndGet());
    }

    void close() throws Exception {
      requests.forEach(HttpClientRequest::reset);
      client.close().await(10, TimeUnit.SECONDS);
    }
  }
}
