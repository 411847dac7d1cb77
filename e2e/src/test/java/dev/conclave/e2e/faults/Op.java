package dev.conclave.e2e.faults;

import java.util.Map;
import java.util.Optional;

/**
 * One entry of a {@link History}, in the Jepsen style: {@code process} (who: client-3, follower-1,
 * agent-7, claimer-2) did {@code f} (send, event, claim, complete, lease-acquire...) with
 * {@code value}; {@code type} says whether this is the invocation or how it completed. A completion
 * names its invocation ({@code invoke}, the invocation's index; -1 for an invocation, and for an
 * observation: something a process saw happen, recorded as {@code ok} with no invocation).
 * {@code nanos} is {@link System#nanoTime()}, {@code wallMillis} the wall clock, both when recorded.
 */
public record Op(long index, String process, Type type, String f, String value, Map<String, String> data, long invoke,
                 long nanos, long wallMillis) {

  /** invoke; ok (it happened); fail (it certainly did not); info (indeterminate: it may or may not have). */
  public enum Type {
    INVOKE, OK, FAIL, INFO;

    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public Op {
    data = Map.copyOf(data);
    value = value == null ? "" : value;
  }

  /** A member of {@code data}, or empty. */
  public Optional<String> get(String key) {
    return Optional.ofNullable(data.get(key));
  }

  /** A member of {@code data}, or {@code ""}. */
  public String str(String key) {
    return data.getOrDefault(key, "");
  }

  public boolean is(Type t, String function) {
    return type == t && f.equals(function);
  }

  @Override
  public String toString() {
    return "#" + index + " " + process + " " + type + " " + f + " " + value + (data.isEmpty() ? "" : " " + new java.util.TreeMap<>(data));
  }
}
