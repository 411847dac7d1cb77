package dev.conclave.e2e.faults;

import java.util.List;
import java.util.Optional;

/** What a checker found: its invariants, each passed or failed with counts and example violations. */
public record Verdict(String title, List<Invariant> invariants) {

  public Verdict {
    invariants = List.copyOf(invariants);
  }

  public boolean valid() {
    return invariants.stream().allMatch(Invariant::passed);
  }

  /** The invariant of that name. */
  public Optional<Invariant> invariant(String name) {
    return invariants.stream().filter(i -> i.name().equals(name)).findFirst();
  }

  /** The names of the invariants that failed. */
  public List<String> failed() {
    return invariants.stream().filter(i -> !i.passed()).map(Invariant::name).toList();
  }

  /** Throws an AssertionError carrying the whole verdict unless every invariant passed. */
  public Verdict assertValid() {
    if (!valid()) {
      throw new AssertionError(toString());
    }
    return this;
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder(title).append(": ").append(valid() ? "VALID" : "INVALID (" + String.join(", ", failed()) + ")");
    invariants.forEach(i -> out.append("\n  ").append(i.toString().replace("\n", "\n  ")));
    return out.toString();
  }
}
