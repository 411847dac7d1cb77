package dev.conclave.gateway.streaming;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The StreamEvents calls this node serves, so a stopping node can end them cleanly. */
public final class Followers {

  private final Set<Runnable> closers = ConcurrentHashMap.newKeySet();

  public void add(Runnable closer) {
    closers.add(closer);
  }

  public void remove(Runnable closer) {
    closers.remove(closer);
  }

  public void closeAll() {
    for (Runnable closer : Set.copyOf(closers)) {
      closer.run();
    }
  }

  public int size() {
    return closers.size();
  }
}
