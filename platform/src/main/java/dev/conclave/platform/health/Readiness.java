package dev.conclave.platform.health;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Whether this node should receive traffic: not while starting (verticles still deploying), and not
 * once it has begun draining for shutdown.
 */
public final class Readiness {

  public enum State { STARTING, READY, DRAINING }

  private final AtomicReference<State> state = new AtomicReference<>(State.STARTING);

  public void started() {
    state.compareAndSet(State.STARTING, State.READY);
  }

  public void draining() {
    state.set(State.DRAINING);
  }

  public State state() {
    return state.get();
  }

  public boolean ready() {
    return state.get() == State.READY;
  }
}
