package dev.conclave.swarm.security;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The spec's rate limits, per minute: REGISTER 10 per IP, HEARTBEAT 12, CLAIM 30, others 60 per agent. */
class RateLimitTest {

  private static SwarmNode swarm;
  private static SwarmApi api;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start(Map.of("CONCLAVE_SWARM_RATE_LIMITS", "true"));
    api = swarm.api();
  }

  @AfterAll
  static void stop() {
    swarm.close();
  }

  /** Moves the clock to the start of the next minute, so a test has a whole window to itself. */
  private static void nextWindow() {
    Instant now = swarm.clock().instant();
    swarm.clock().advance(Duration.between(now, now.truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1))));
  }

  private static String agent() {
    String id = "agent-" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(api.register(id, List.of("x")).status()).isEqualTo(200);
    return id;
  }

  private static void assertLimited(Reply reply, int maxRetryAfter) {
    assertThat(reply.status()).as(reply.toString()).isEqualTo(429);
    assertThat(reply.code()).isEqualTo("rate_limited");
    assertThat(reply.contentType()).isEqualTo("application/problem+json");
    int retryAfter = Integer.parseInt(reply.headers().get("Retry-After"));
    assertThat(retryAfter).isBetween(1, maxRetryAfter);
  }

  @Test
  void claimsAreLimitedToThirtyAMinutePerAgent() {
    nextWindow();
    String agent = agent();
    String other = agent();
    for (int i = 0; i < 30; i++) {
      assertThat(api.claim(agent).status()).isEqualTo(200);
    }
    swarm.clock().advance(Duration.ofSeconds(20));

    assertLimited(api.claim(agent), 40);
    assertThat(api.claim(other).status()).as("another agent has its own allowance").isEqualTo(200);

    swarm.clock().advance(Duration.ofSeconds(40));
    assertThat(api.claim(agent).status()).as("the next minute").isEqualTo(200);
  }

  @Test
  void heartbeatsAreLimitedToTwelveAMinute() {
    nextWindow();
    String agent = agent();
    for (int i = 0; i < 12; i++) {
      assertThat(api.heartbeat(agent, "idle").status()).isEqualTo(200);
    }
    assertLimited(api.heartbeat(agent, "idle"), 60);
  }

  @Test
  void otherOperationsShareSixtyAMinute() {
    nextWindow();
    String agent = agent();
    for (int i = 0; i < 30; i++) {
      assertThat(api.release(agent, "f" + i).status()).isEqualTo(200);
      assertThat(api.get("/api/v1/messages?protocolVersion=1.0&agentId=" + agent).status()).isEqualTo(200);
    }
    assertLimited(api.release(agent, "one-more"), 60);
  }

  @Test
  void registrationsAreLimitedToTenAMinutePerAddress() {
    nextWindow();
    for (int i = 0; i < 10; i++) {
      agent();
    }
    assertLimited(api.register("agent-" + UUID.randomUUID(), List.of("x")), 60);
  }
}
