package dev.conclave.gateway.sessions;

import java.util.Optional;

/**
 * The mutable state of one agent session, in one place. Only {@link AgentSession} holds it and
 * changes it (on the session's context); its parts see it through {@link SessionView}.
 */
final class SessionState implements SessionView {

  enum Phase { AWAITING_REGISTER, REGISTERING, REGISTERED, CLOSED }

  private Phase phase = Phase.AWAITING_REGISTER;
  private Registration.Registered registered;
  private InFlight inFlight;
  private boolean draining;
  /** Retiring: no new work; once the request in flight ends, Shutdown and Retired. */
  private boolean retiring;
  private long registerTimer = -1;
  /** Stops watching the caller's credentials. */
  private Runnable unwatch = () -> { };

  Phase phase() {
    return phase;
  }

  /** Moves to {@code next}; returns the phase it left. */
  Phase moveTo(Phase next) {
    Phase was = phase;
    phase = next;
    return was;
  }

  void registered(Registration.Registered granted) {
    registered = granted;
    phase = Phase.REGISTERED;
  }

  void inFlight(InFlight flight) {
    inFlight = flight;
  }

  void draining(boolean value) {
    draining = value;
  }

  boolean retiring() {
    return retiring;
  }

  void retiring(boolean value) {
    retiring = value;
  }

  long registerTimer() {
    return registerTimer;
  }

  void registerTimer(long timer) {
    registerTimer = timer;
  }

  void unwatch(Runnable action) {
    unwatch = action;
  }

  Runnable unwatch() {
    return unwatch;
  }

  Optional<dev.conclave.gateway.presence.PresenceEntry> presence() {
    return Optional.ofNullable(registered).map(Registration.Registered::presence);
  }

  @Override
  public String agentId() {
    return registered == null ? "" : registered.agent().agentId();
  }

  @Override
  public long epoch() {
    return registered == null ? -1 : registered.agent().epoch();
  }

  @Override
  public Registration.Registered registration() {
    return registered;
  }

  @Override
  public InFlight inFlight() {
    return inFlight;
  }

  @Override
  public boolean registered() {
    return phase == Phase.REGISTERED;
  }

  @Override
  public boolean draining() {
    return draining;
  }

  @Override
  public boolean registering() {
    return phase == Phase.REGISTERING;
  }

  @Override
  public boolean closed() {
    return phase == Phase.CLOSED;
  }
}
