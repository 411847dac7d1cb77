package dev.conclave.gateway.api;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.streaming.ConversationRelay;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.bridge.BridgeTopic;
import io.vertx.core.Future;

import java.util.List;

/**
 * What dashboards may follow of the gateway over the bridge: presence (members), and each
 * conversation's live events (whoever may read the conversation, as for {@code StreamEvents}).
 */
public final class DashboardTopics {

  private DashboardTopics() {
  }

  public static List<BridgeTopic> of(ConversationAccess conversations, ConversationRelay relay) {
    return List.of(BridgeTopic.exact(Addresses.PRESENCE_EVENTS, Audience.MEMBERS), new BridgeTopic() {
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
      public Future<Void> subscribed(String address) {
        return relay.acquire(Addresses.conversationOfDashboardAddress(address));
      }

      @Override
      public void unsubscribed(String address) {
        relay.release(Addresses.conversationOfDashboardAddress(address));
      }
    });
  }
}
