package dev.conclave.agent;

import java.util.Objects;
import java.util.Optional;

/** The agent's answer to an {@link Injection}, sent as {@code InjectionAck}. */
public record InjectionDecision(boolean accepted, Optional<String> reason) {

  public InjectionDecision {
    Objects.requireNonNull(reason, "reason");
  }

  public static InjectionDecision accept() {
    return new InjectionDecision(true, Optional.empty());
  }

  public static InjectionDecision reject(String reason) {
    return new InjectionDecision(false, Optional.of(Objects.requireNonNull(reason, "reason")));
  }
}
