package dev.conclave.gateway.cluster;

import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.presence.NodeRegistry;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.streaming.LiveEvents;
import dev.conclave.gateway.support.StoreFixture;
import dev.conclave.proto.coven.AgentMetadata;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static dev.conclave.gateway.support.GatewayFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clean-up after a gateway node that left the cluster: its agents are released and its registry
 * entry removed once it has been missing at two checks, but not when it is back while the clean-up
 * runs (a healed partition whose node re-asserted its agents meanwhile must keep them).
 */
class MembershipWatcherTest {

  private static StoreFixture db;
  private static Vertx vertx;
  private static Pool pool;
  private static Terminations terminations;

  @BeforeAll
  static void start() {
    db = StoreFixture.start(2);
    vertx = db.vertx();
    pool = db.pool();
    LedgerWriter writer = new LedgerWriter(pool, db.ledger(), new LiveEvents(vertx), 1);
    terminations = new Terminations(writer, new RequestStore(pool), new ApprovalStore(pool), new AgentStore(pool), Clock.systemUTC());
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void aNodeMissingAtTwoChecksIsCleanedUpAfter() {
    NodeRegistry nodes = new NodeRegistry(vertx);
    Presence presence = new Presence(vertx, false);
    String gone = "gone-" + UUID.randomUUID();
    await(nodes.join("me", "member-me"));
    await(nodes.join(gone, "member-gone"));
    PresenceEntry agent = entry("agent-of-" + gone, gone);
    await(presence.claim(agent));
    MembershipWatcher watcher = new MembershipWatcher("me", () -> Set.of("member-me"), nodes, presence, terminations);

    await(watcher.check());
    assertThat(await(presence.get(agent.agentId()))).as("after one check the node may still be coming back").isPresent();
    await(watcher.check());

    assertThat(await(presence.get(agent.agentId()))).as("its agent, after the second check").isEmpty();
    assertThat(await(nodes.entries())).as("the registry").doesNotContainKey(gone);
  }

  @Test
  void aNodeBackWhileItsCleanUpRunsKeepsItsAgentsAndItsEntry() {
    NodeRegistry nodes = new NodeRegistry(vertx);
    Presence presence = new Presence(vertx, false);
    String back = "back-" + UUID.randomUUID();
    await(nodes.join("me", "member-me"));
    await(nodes.join(back, "member-back"));
    PresenceEntry agent = entry("agent-of-" + back, back);
    await(presence.claim(agent));
    // the member is missing at both checks, and a member again from the clean-up's first step on
    // (the partition healed while the clean-up read presence, and the node re-asserted its agents)
    AtomicInteger asked = new AtomicInteger();
    Supplier<Set<String>> members = () -> asked.incrementAndGet() <= 2 ? Set.of("member-me") : Set.of("member-me", "member-back");
    MembershipWatcher watcher = new MembershipWatcher("me", members, nodes, presence, terminations);

    await(watcher.check());
    await(watcher.check());

    assertThat(asked.get()).as("membership asked again during the clean-up").isGreaterThan(2);
    assertThat(await(presence.get(agent.agentId()))).as("the agent of the node that is back").contains(agent);
    assertThat(await(nodes.entries())).as("the registry").containsEntry(back, "member-back");
  }

  private static PresenceEntry entry(String agentId, String node) {
    return new PresenceEntry(agentId, UUID.randomUUID(), node, 1, agentId, List.of(), List.of(), AgentMetadata.getDefaultInstance(),
      Instant.parse("2026-11-27T10:00:00Z"));
  }
}
