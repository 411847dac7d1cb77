package dev.conclave.agent.pack;

import dev.conclave.agent.Backoff;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.client.PackClientBuilder;
import dev.conclave.agent.testing.Wait;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Real pack clients against fake pack hosts on 127.0.0.1; everything started here is stopped after each test. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
abstract class PackTestBase {

  static final String TOKEN = "pack-token";
  static final String PACK_ID = "weather";
  /** Fast, jitter-free backoff so reconnect tests stay short. */
  static final Backoff FAST = new Backoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.0);

  protected Vertx vertx;
  private final List<PackClient> clients = new ArrayList<>();
  private final List<FakePackHost> hosts = new ArrayList<>();

  @BeforeEach
  void setUpVertx(Vertx vertx) {
    this.vertx = vertx;
  }

  @AfterEach
  void tearDown() {
    for (PackClient c : clients) {
      Wait.result(c.close(), Duration.ofSeconds(10));
    }
    for (FakePackHost h : hosts) {
      h.close();
    }
  }

  FakePackHost host() {
    FakePackHost h = FakePackHost.start(vertx);
    hosts.add(h);
    return h;
  }

  /** A tool that echoes its input back as output. */
  static PackTool echo(String name) {
    return PackTool.builder(name).description("echoes").handler(call -> Future.succeededFuture(call.inputJson())).build();
  }

  PackClientBuilder builder(Endpoint... endpoints) {
    return PackClient.builder(vertx)
      .endpoints(Arrays.asList(endpoints))
      .token(TOKEN)
      .packId(PACK_ID)
      .version("1.2.3")
      .backoff(FAST)
      .closeGrace(Duration.ofSeconds(2));
  }

  PackClient client(PackClientBuilder builder) {
    PackClient c = builder.build();
    clients.add(c);
    return c;
  }

  /** Builds, starts and waits for the first registration. */
  PackClient started(PackClientBuilder builder) {
    PackClient c = client(builder);
    Wait.result(c.start());
    return c;
  }
}
