package dev.conclave.gateway.streaming;

import dev.conclave.contract.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;

/**
 * Feeds {@link Addresses#dashboardConversation} on this node while bridge sockets here follow a
 * conversation: one cluster subscription and one JSON rendering per event and node, whatever the
 * number of sockets. Republished node-locally, so each node renders only what its sockets want.
 * Shared by the node's edge instances (hence synchronized); the count pairs acquires and releases.
 */
public final class ConversationRelay {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationRelay.class);
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private record Feed(MessageConsumer<Buffer> consumer, Future<Void> ready, int[] followers) {
  }

  private final Vertx vertx;
  private final Map<String, Feed> feeds = new HashMap<>();

  public ConversationRelay(Vertx vertx) {
    this.vertx = vertx;
  }

  /** One more follower of {@code conversationKey} here; completes once events flow. */
  public synchronized Future<Void> acquire(String conversationKey) {
    Feed feed = feeds.get(conversationKey);
    if (feed == null) {
      String target = Addresses.dashboardConversation(conversationKey);
      MessageConsumer<Buffer> consumer = vertx.eventBus().consumer(Addresses.conversation(conversationKey), msg -> {
        try {
          LiveEvents.Live live = LiveEvents.decode(msg.body());
          vertx.eventBus().publish(target, DashboardEvents.json(live.seq(), live.event()), LOCAL);
        } catch (RuntimeException e) {
          LOG.warn("conversation event not relayed to dashboards conversation={} error={}", conversationKey, e.toString());
        }
      });
      feed = new Feed(consumer, consumer.completion(), new int[] {0});
      feeds.put(conversationKey, feed);
    }
    feed.followers()[0]++;
    return feed.ready();
  }

  public synchronized void release(String conversationKey) {
    Feed feed = feeds.get(conversationKey);
    if (feed != null && --feed.followers()[0] <= 0) {
      feeds.remove(conversationKey);
      feed.consumer().unregister();
    }
  }

  /** Conversations followed on this node. */
  public synchronized int size() {
    return feeds.size();
  }
}
