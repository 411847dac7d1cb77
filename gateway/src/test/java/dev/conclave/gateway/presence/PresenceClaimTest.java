package dev.conclave.gateway.presence;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.proto.coven.AgentMetadata;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Claiming an agent's presence: a newer session (a higher epoch) replaces an older one, never the
 * other way round. In a reconnection storm (issue 45) an agent gave up on a registration still
 * queued on a busy node and registered elsewhere; the abandoned registration, which held the older
 * epoch, completed later and superseded the agent's live session, which then reconnected again.
 */
class PresenceClaimTest {

  private static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aNewerSessionReplacesAnOlderOne() throws Exception {
    Presence presence = new Presence(vertx, false);
    PresenceEntry older = entry("newer-wins", "node-a", 1);
    PresenceEntry newer = entry("newer-wins", "node-b", 2);
    await(presence.claim(older));

    assertThat(await(presence.claim(newer))).contains(older);
    assertThat(await(presence.get("newer-wins"))).contains(newer);
  }

  @Test
  void anOlderSessionFinishingLateDoesNotReplaceANewerOne() throws Exception {
    Presence presence = new Presence(vertx, false);
    PresenceEntry newer = entry("late-older", "node-b", 2);
    PresenceEntry older = entry("late-older", "node-a", 1);
    await(presence.claim(newer));

    Throwable refused = Await.failure(presence.claim(older));

    assertThat(refused).as("the older session's claim").isInstanceOfSatisfying(ConclaveException.class,
      e -> assertThat(e.code()).isEqualTo("superseded"));
    assertThat(await(presence.get("late-older"))).as("the agent's presence").contains(newer);
  }

  private static PresenceEntry entry(String agentId, String node, long epoch) {
    return new PresenceEntry(agentId, UUID.nameUUIDFromBytes(agentId.getBytes()), node, epoch, agentId, List.of(), List.of(),
      AgentMetadata.getDefaultInstance(), Instant.parse("2026-12-05T22:00:00Z"));
  }
}
