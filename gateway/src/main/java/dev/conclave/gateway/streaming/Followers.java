package dev.conclave.gateway.streaming;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calls this node serves that follow a conversation live (StreamEvents, session sockets): a
 * stopping node ends them cleanly, and after the cluster's membership changed each one that can
 * subscribes again and reads what it may have missed.
 */
public final class Followers {

  private static final Runnable NOTHING = () -> { };

  /** Closer to re-subscriber. */
  private final Map<Runnable, Runnable> followers = new ConcurrentHashMap<>();

  /** A follower that is only closed (it reads the ledger on a timer anyway). */
  public void add(Runnable closer) {
    followers.put(closer, NOTHING);
  }

  /** A follower that is closed with {@code closer} and re-subscribes with {@code resubscribe}. */
  public void add(Runnable closer, Runnable resubscribe) {
    followers.put(closer, resubscribe);
  }

  public void remove(Runnable closer) {
    followers.remove(closer);
  }

  public void closeAll() {
    for (Runnable closer : Map.copyOf(followers).keySet()) {
      closer.run();
    }
  }

  /** Every follower's re-subscription, to be run after the cluster's membership changed. */
  public java.util.List<Runnable> resubscribers() {
    return followers.values().stream().filter(r -> r != NOTHING).toList();
  }

  public int size() {
    return followers.size();
  }
}
