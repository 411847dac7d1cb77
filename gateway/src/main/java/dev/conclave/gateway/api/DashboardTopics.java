package dev.conclave.gateway.api;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.streaming.ConversationRelay;
import dev.conclave.platform.access.AccessTarget;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.bridge.BridgeTopic;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * What dashboards may follow of the gateway over the bridge: presence (members, each for the agents
 * it may act on), and each conversation's live events (whoever may read the conversation, as for
 * {@code StreamEvents}). A conversation's subscription is re-checked whenever access changes
 * ({@link LiveAccess}) and ends when its caller may no longer read it.
 */
public final class DashboardTopics {

  private DashboardTopics() {
  }

  /** How long a member's set of visible agents is reused before it is read again. */
  static final long VISIBLE_AGENTS_TTL_MS = 5_000;

  public static List<BridgeTopic> of(ConversationAccess conversations, ConversationRelay relay, LiveAccess live) {
    return List.of(presence(conversations.agents(), live), lifecycle(), new BridgeTopic() {
      @Override
      public boolean owns(String address) {
        return Addresses.conversationOfDashboardAddress(address) != null;
      }

      @Override
      public Future<Void> authorize(Caller caller, String address) {
        try {
          Audience.MEMBERS.check(caller, "following a conversation");
        } catch (RuntimeException e) {
          return Future.failedFuture(e);
        }
        return conversations.require(caller, Addresses.conversationOfDashboardAddress(address));
      }

      @Override
      public Optional<AccessTarget> target(String address) {
        return Optional.of(AccessTarget.conversation(Audience.MEMBERS, Addresses.conversationOfDashboardAddress(address)));
      }

      @Override
      public Future<Void> subscribed(String address) {
        return relay.acquire(Addresses.conversationOfDashboardAddress(address));
      }

      @Override
      public void unsubscribed(String address) {
        relay.release(Addresses.conversationOfDashboardAddress(address));
      }
    });
  }

  /** Lifecycle events and status changes of every agent, for admins' dashboards. */
  static BridgeTopic lifecycle() {
    return BridgeTopic.exact(Addresses.LIFECYCLE_EVENTS, Audience.ADMINS, (caller, body) -> BridgeTopic.ALWAYS);
  }

  /**
   * Presence for members: each sees the agents it may act on, as {@code ListAgents} lists them (an
   * admin, all). The agents a member may act on are read once per {@link #VISIBLE_AGENTS_TTL_MS}
   * per member on this edge instance, not per event, and again as soon as this node hears of a
   * change of access ({@link LiveAccess#mark}), so a grant taken back hides the agent at once.
   */
  static BridgeTopic presence(AgentAccess access, LiveAccess live) {
    Map<UUID, Future<Set<UUID>>> visible = new HashMap<>();
    Map<UUID, Long> readAt = new HashMap<>();
    Map<UUID, Long> readMark = new HashMap<>();
    return BridgeTopic.exact(Addresses.PRESENCE_EVENTS, Audience.MEMBERS, (caller, body) -> {
      if (caller.isAdmin()) {
        return BridgeTopic.ALWAYS;
      }
      if (!(body instanceof JsonObject event) || event.getString("principalId") == null) {
        return Future.succeededFuture(false);
      }
      long now = System.currentTimeMillis();
      long mark = live.mark();
      Future<Set<UUID>> agents = visible.get(caller.principalId());
      if (agents == null || now - readAt.get(caller.principalId()) > VISIBLE_AGENTS_TTL_MS || agents.failed()
        || readMark.get(caller.principalId()) != mark) {
        if (visible.size() > 10_000) {
          visible.clear();
          readAt.clear();
          readMark.clear();
        }
        agents = access.agentPrincipalsOf(caller);
        visible.put(caller.principalId(), agents);
        readAt.put(caller.principalId(), now);
        readMark.put(caller.principalId(), mark);
      }
      return agents.map(set -> set.contains(UUID.fromString(event.getString("principalId"))));
    });
  }
}
