package dev.conclave.agent;

import dev.conclave.agent.client.AgentClient;
import dev.conclave.agent.client.AgentClientBuilder;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
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

/** Real clients against gateway doubles on 127.0.0.1; everything started here is stopped after each test. */
@ExtendWith(VertxExtension.class)
@Timeout(value = 30, unit = TimeUnit.SECONDS)
public abstract class ClientTestBase {

  protected static final String TOKEN = "test-token";
  protected static final String AGENT_ID = "agent-7f3a";
  /** Fast, jitter-free backoff so reconnect tests stay short and their timing is predictable. */
  protected static final Backoff FAST = new Backoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.0);

  protected Vertx vertx;
  private final List<AgentClient> clients = new ArrayList<>();
  private final List<FakeGateway> gateways = new ArrayList<>();

  @BeforeEach
  void setUpVertx(Vertx vertx) {
    this.vertx = vertx;
  }

  @AfterEach
  void tearDown() {
    for (AgentClient c : clients) {
      Wait.result(c.stop(), Duration.ofSeconds(10));
    }
    for (FakeGateway g : gateways) {
      g.close();
    }
  }

  protected FakeGateway gateway(String serverId) {
    return track(FakeGateway.start(vertx, serverId));
  }

  /** A gateway double this test started some other way, closed after it like the rest. */
  protected FakeGateway track(FakeGateway g) {
    gateways.add(g);
    return g;
  }

  protected AgentClientBuilder builder(Endpoint... endpoints) {
    return AgentClient.builder(vertx)
      .endpoints(Arrays.asList(endpoints))
      .token(TOKEN)
      .agentId(AGENT_ID)
      .name("test-agent")
      .backoff(FAST)
      .closeGrace(Duration.ofSeconds(2))
      .handler(new EchoHandler());
  }

  protected AgentClient client(AgentClientBuilder builder) {
    AgentClient c = builder.build();
    clients.add(c);
    return c;
  }

  /** Builds, starts and waits for the first registration. */
  protected AgentClient started(AgentClientBuilder builder) {
    AgentClient c = client(builder);
    Wait.result(c.start());
    return c;
  }
}
