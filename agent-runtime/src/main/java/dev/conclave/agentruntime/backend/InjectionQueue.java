package dev.conclave.agentruntime.backend;

import dev.conclave.agent.Injection;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Context injected by the gateway ({@code InjectContext}) waiting for the backend's next turn.
 * Bounded: when full, a new injection is refused (and the gateway told so) rather than kept.
 * Thread-safe.
 */
public final class InjectionQueue {

  private final int capacity;
  private final Deque<Injection> queued = new ArrayDeque<>();

  public InjectionQueue(int capacity) {
    this.capacity = capacity;
  }

  /** Queues an injection; false when the queue is full. */
  public synchronized boolean offer(Injection injection) {
    if (queued.size() >= capacity) {
      return false;
    }
    queued.addLast(injection);
    return true;
  }

  /** Takes everything queued, oldest first. */
  public synchronized List<Injection> drain() {
    List<Injection> out = new ArrayList<>(queued);
    queued.clear();
    return out;
  }

  /** The queued injections as text to put before the model's next input; empty when none. */
  public String drainAsText() {
    StringBuilder b = new StringBuilder();
    for (Injection i : drain()) {
      b.append("[context").append(i.source().map(s -> " from " + s).orElse(""))
        .append(", ").append(i.priority().name().toLowerCase(java.util.Locale.ROOT)).append("] ")
        .append(i.content()).append('\n');
    }
    return b.toString();
  }

  /** {@code prompt} preceded by the queued context, if any. */
  public String prefix(String prompt) {
    String context = drainAsText();
    return context.isEmpty() ? prompt : context + "\n" + prompt;
  }
}
