package dev.conclave.agent;

import dev.conclave.agent.GatewayStatusException.AgentAlreadyConnectedException;
import dev.conclave.agent.GatewayStatusException.AuthenticationFailedException;
import dev.conclave.agent.GatewayStatusException.InvalidRegistrationException;
import dev.conclave.agent.GatewayStatusException.PermissionDeniedException;
import dev.conclave.agent.client.AgentClient;
import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.RegisterAgent;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class RegistrationTest extends ClientTestBase {

  @Test
  void registersWithEverythingItDeclaresAndReportsTheWelcome() {
    FakeGateway gw = gateway("node-a").requireToken(TOKEN);
    AgentEnvironment env = new AgentEnvironment("/home/dev/project", "devbox", "linux", List.of("dev", "personal"),
      "mux", Optional.of(new GitStatus("main", "abc123", true, "origin", 2, 1)));
    AgentClient client = client(builder(gw.endpoint())
      .capabilities("chat", "code")
      .features(Feature.TOKEN_USAGE, Feature.TOOL_STATES, Feature.INJECTION, Feature.CANCELLATION)
      .environment(env));

    Session session = Wait.result(client.start());

    assertThat(session.serverId()).isEqualTo("node-a");
    assertThat(session.agentId()).isEqualTo(AGENT_ID);
    assertThat(session.principalId()).isEqualTo("principal-1");
    assertThat(session.instanceId()).isNotEmpty();
    assertThat(session.endpoint()).isEqualTo(gw.endpoint());
    assertThat(session.mcpToken()).isEqualTo("mcp-token");
    assertThat(session.mcpEndpoint()).isEqualTo("http://127.0.0.1:8080/mcp");
    assertThat(session.secrets()).isEqualTo(Map.of("API_KEY", "s3cret"));
    assertThat(session.availableTools()).singleElement().satisfies(t -> {
      assertThat(t.name()).isEqualTo("weather");
      assertThat(t.timeout()).isEqualTo(Duration.ofSeconds(7));
      assertThat(t.requiredCapabilities()).containsExactly("chat");
    });
    assertThat(session.toString()).doesNotContain("s3cret").doesNotContain("mcp-token");
    assertThat(client.session()).contains(session);

    RegisterAgent reg = gw.connections().get(0).register();
    assertThat(reg.getAgentId()).isEqualTo(AGENT_ID);
    assertThat(reg.getName()).isEqualTo("test-agent");
    assertThat(reg.getCapabilitiesList()).containsExactly("chat", "code");
    assertThat(reg.getProtocolFeaturesList())
      .containsExactlyInAnyOrder("token_usage", "tool_states", "injection", "cancellation");
    assertThat(reg.getMetadata().getWorkingDirectory()).isEqualTo("/home/dev/project");
    assertThat(reg.getMetadata().getHostname()).isEqualTo("devbox");
    assertThat(reg.getMetadata().getOs()).isEqualTo("linux");
    assertThat(reg.getMetadata().getWorkspacesList()).containsExactly("dev", "personal");
    assertThat(reg.getMetadata().getBackend()).isEqualTo("mux");
    assertThat(reg.getMetadata().getGit().getBranch()).isEqualTo("main");
    assertThat(reg.getMetadata().getGit().getDirty()).isTrue();
    assertThat(reg.getMetadata().getGit().getAhead()).isEqualTo(2);
    assertThat(gw.authorizations()).containsExactly("Bearer " + TOKEN);
  }

  @Test
  void declaresOnlyTheFeaturesItWasGiven() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).features(Feature.TOKEN_USAGE));
    assertThat(gw.connections().get(0).register().getProtocolFeaturesList()).containsExactly("token_usage");
  }

  @Test
  void registrationErrorFailsStartWithReasonAndSuggestedIdAndStopsRetrying() {
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> conn.rejectRegistration("agent not approved", "agent-7f3a-2"));
    AgentClient client = client(builder(gw.endpoint()));

    Throwable failure = Wait.failure(client.start());

    assertThat(failure).isInstanceOfSatisfying(RegistrationRejectedException.class, e -> {
      assertThat(e.reason()).isEqualTo("agent not approved");
      assertThat(e.suggestedId()).contains("agent-7f3a-2");
      assertThat(e.endpoint()).isEqualTo(gw.endpoint());
    });
    assertThat(Wait.failure(client.stopped())).isSameAs(failure);
    gw.nextConnection();
    gw.expectNoConnection(Duration.ofMillis(300));
  }

  @Test
  void wrongTokenIsUnauthenticatedAndPermanent() {
    FakeGateway gw = gateway("node-a").requireToken("another-token");
    AgentClient client = client(builder(gw.endpoint()));

    Throwable failure = Wait.failure(client.start());

    assertThat(failure).isInstanceOfSatisfying(AuthenticationFailedException.class, e -> {
      assertThat(e.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      assertThat(e.statusMessage()).isEqualTo("token rejected");
      assertThat(e.permanent()).isTrue();
    });
    Wait.sleep(300);
    assertThat(gw.authorizations()).hasSize(1);
  }

  @Test
  void permissionDeniedIsPermanent() {
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> conn.endWith(GrpcStatus.PERMISSION_DENIED, "principal may not run agents"));
    AgentClient client = client(builder(gw.endpoint()));

    assertThat(Wait.failure(client.start())).isInstanceOfSatisfying(PermissionDeniedException.class,
      e -> assertThat(e.statusMessage()).isEqualTo("principal may not run agents"));
    gw.nextConnection();
    gw.expectNoConnection(Duration.ofMillis(300));
  }

  @Test
  void invalidArgumentIsReportedAsInvalidRegistrationAndPermanent() {
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> conn.endWith(GrpcStatus.INVALID_ARGUMENT, "agent_id missing"));
    AgentClient client = client(builder(gw.endpoint()));

    assertThat(Wait.failure(client.start())).isInstanceOf(InvalidRegistrationException.class)
      .hasMessageContaining("agent_id missing");
    gw.nextConnection();
    gw.expectNoConnection(Duration.ofMillis(300));
  }

  @Test
  void alreadyExistsIsRetriedABoundedNumberOfTimes() {
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> conn.endWith(GrpcStatus.ALREADY_EXISTS, "agent already connected"));
    AgentClient client = client(builder(gw.endpoint()).alreadyExistsRetries(2));

    assertThat(Wait.failure(client.start())).isInstanceOf(AgentAlreadyConnectedException.class);
    for (int i = 0; i < 3; i++) {
      gw.nextConnection();
    }
    gw.expectNoConnection(Duration.ofMillis(300));
  }

  @Test
  void alreadyExistsClearsOnceTheOldStreamIsGone() {
    AtomicInteger calls = new AtomicInteger();
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> {
      if (calls.incrementAndGet() == 1) {
        conn.endWith(GrpcStatus.ALREADY_EXISTS, "agent already connected");
      } else {
        conn.welcome();
      }
    });
    Session session = Wait.result(client(builder(gw.endpoint())).start());
    assertThat(session.serverId()).isEqualTo("node-a");
    assertThat(calls.get()).isEqualTo(2);
  }

  @Test
  void unavailableIsTransientAndRetriedUntilWelcome() {
    AtomicInteger calls = new AtomicInteger();
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> {
      if (calls.incrementAndGet() < 3) {
        conn.endWith(GrpcStatus.UNAVAILABLE, "warming up");
      } else {
        conn.welcome();
      }
    });
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    AgentClient client = client(builder(gw.endpoint()).listener(new ConnectionListener() {
      @Override
      public void onRetryScheduled(Endpoint next, Duration delay, int attempt, Throwable lastFailure) {
        failures.add(lastFailure);
      }
    }));

    Wait.result(client.start());

    assertThat(calls.get()).isEqualTo(3);
    assertThat(failures).hasSize(2).allSatisfy(f -> assertThat(f).isInstanceOfSatisfying(GatewayStatusException.class,
      e -> assertThat(e.status()).isEqualTo(GrpcStatus.UNAVAILABLE)));
  }

  @Test
  void gatewayThatNeverWelcomesTimesOutAndIsRetried() {
    AtomicInteger calls = new AtomicInteger();
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> {
      if (calls.incrementAndGet() > 1) {
        conn.welcome();
      }
    });
    // on a busy machine a welcomed registration can miss the timeout too and be tried again: only
    // "at least twice" is certain
    AgentClient client = client(builder(gw.endpoint()).registrationTimeout(Duration.ofSeconds(1)));

    Wait.result(client.start());

    assertThat(calls.get()).isGreaterThanOrEqualTo(2);
    AgentConn first = gw.connections().get(0);
    assertThat(first.awaitEnd(FakeGateway.WAIT)).isNotEmpty();
  }

  /**
   * A gateway that answered with its headers has the stream in hand and registers agents in turn
   * (after a node was lost, its agents all register on the survivors at once): the agent
   * waits its turn for the longer queue budget instead of giving up at the registration timeout and
   * joining the back of another node's queue.
   */
  @Test
  void aRegistrationTheGatewayAnsweredWithHeadersWaitsItsTurnPastTheRegistrationTimeout() {
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> {
      conn.headersOnly();
      vertx.setTimer(2_500, id -> conn.welcome());
    });
    AgentClient client = client(builder(gw.endpoint()).connectTimeout(Duration.ofMillis(500))
      .registrationTimeout(Duration.ofMillis(500)).registrationQueueTimeout(Duration.ofSeconds(20)));

    Wait.result(client.start());

    assertThat(gw.connections()).hasSize(1);
  }

  @Test
  void aQueuedRegistrationStillEndsAtTheQueueBudget() {
    AtomicInteger calls = new AtomicInteger();
    FakeGateway gw = gateway("node-a").onRegister((conn, reg) -> {
      if (calls.incrementAndGet() == 1) {
        conn.headersOnly();
      } else {
        conn.welcome();
      }
    });
    AgentClient client = client(builder(gw.endpoint()).registrationTimeout(Duration.ofMillis(500))
      .registrationQueueTimeout(Duration.ofSeconds(1)));

    Wait.result(client.start());

    assertThat(calls.get()).isGreaterThanOrEqualTo(2);
    assertThat(gw.connections().get(0).awaitEnd(FakeGateway.WAIT)).isNotEmpty();
  }

  @Test
  void stopBeforeRegistrationFailsStart() {
    int dead = FakeGateway.deadPort();
    AgentClient client = client(builder(new Endpoint("127.0.0.1", dead)));
    var start = client.start();
    Wait.sleep(50);
    Wait.result(client.stop());
    assertThat(Wait.failure(start)).isInstanceOf(ClientStoppedException.class);
  }
}
