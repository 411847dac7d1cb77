package dev.conclave.gateway.model;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An agent's lifecycle state (seed 004) and the allowed-transition table, the one place that says
 * which state may follow which. Only {@link #RUNNING} receives new work; {@link #RETIRED} is final.
 */
public enum LifecycleState {
  DEFINED("Defined"),
  PROVISIONING("Provisioning"),
  INITIALIZED("Initialized"),
  RUNNING("Running"),
  PAUSED("Paused"),
  MAINTAINING("Maintaining"),
  EVOLVING("Evolving"),
  RETIRING("Retiring"),
  RETIRED("Retired");

  private static final Map<LifecycleState, Set<LifecycleState>> ALLOWED = Map.of(
    DEFINED, EnumSet.of(PROVISIONING, INITIALIZED, RUNNING, RETIRING),
    PROVISIONING, EnumSet.of(INITIALIZED, RUNNING, RETIRING),
    INITIALIZED, EnumSet.of(RUNNING, PAUSED, MAINTAINING, RETIRING),
    RUNNING, EnumSet.of(PAUSED, MAINTAINING, EVOLVING, RETIRING),
    PAUSED, EnumSet.of(RUNNING, MAINTAINING, EVOLVING, RETIRING),
    MAINTAINING, EnumSet.of(RUNNING, PAUSED, RETIRING),
    EVOLVING, EnumSet.of(RUNNING, PAUSED, RETIRING),
    RETIRING, EnumSet.of(RETIRED),
    RETIRED, EnumSet.noneOf(LifecycleState.class));

  private final String display;

  LifecycleState(String display) {
    this.display = display;
  }

  /** As stored and as the wire shows it: lower case ({@code paused}). */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** As seed 004 names it ({@code Paused}). */
  public String display() {
    return display;
  }

  public Set<LifecycleState> next() {
    return ALLOWED.get(this);
  }

  /** Why {@code this → to} is refused, or empty when it is allowed. */
  public Optional<String> refusal(LifecycleState to) {
    if (to == this) {
      return Optional.of("the agent is already " + display);
    }
    if (ALLOWED.get(this).contains(to)) {
      return Optional.empty();
    }
    if (this == RETIRED) {
      return Optional.of("Retired is final: a retired agent never changes state again");
    }
    if (to == RETIRED) {
      return Optional.of(display + " cannot go straight to Retired: move it to Retiring, which lets the request in flight finish");
    }
    return Optional.of(display + " may only become " + String.join(", ", ALLOWED.get(this).stream().map(LifecycleState::display).toList()));
  }

  /** Whether the agent's mailbox hands out new work in this state. */
  public boolean takesWork() {
    return this == RUNNING;
  }

  /** Parses {@code paused} or {@code Paused}. */
  public static Optional<LifecycleState> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    return Arrays.stream(values()).filter(s -> s.name().equalsIgnoreCase(text.trim())).findFirst();
  }

  /** The seed's LifecycleEvent name for entering {@code to} from {@code from}. */
  public static String eventName(LifecycleState from, LifecycleState to) {
    return switch (to) {
      case DEFINED -> "Created";
      case PROVISIONING -> "Provisioning";
      case INITIALIZED -> "Initialized";
      case RUNNING -> from == PAUSED || from == MAINTAINING || from == EVOLVING ? "Resumed" : "Started";
      case PAUSED -> "Paused";
      case MAINTAINING -> "MaintenanceStarted";
      case EVOLVING -> "EvolutionStarted";
      case RETIRING -> "RetirementStarted";
      case RETIRED -> "Retired";
    };
  }
}
