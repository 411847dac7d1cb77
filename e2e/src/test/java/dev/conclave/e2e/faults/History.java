package dev.conclave.e2e.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * A thread-safe, append-only record of what the processes of a fault test did and saw, in the
 * Jepsen style ({@link Op}): each operation is an invocation followed by one completion (ok, fail
 * or info), and what a process merely observed is an ok with no invocation. Load generators write
 * it; checkers read a snapshot.
 */
public final class History {

  private final List<Op> ops = new ArrayList<>();

  /** Records that {@code process} starts {@code f} with {@code value}. */
  public Op invoke(String process, String f, String value, Map<String, String> data) {
    return append(process, Op.Type.INVOKE, f, value, data, -1);
  }

  /** The invocation happened, with what it returned in {@code data}. */
  public Op ok(Op invocation, Map<String, String> data) {
    return complete(invocation, Op.Type.OK, invocation.value(), data);
  }

  /** The invocation certainly did not happen. */
  public Op fail(Op invocation, Map<String, String> data) {
    return complete(invocation, Op.Type.FAIL, invocation.value(), data);
  }

  /** Whether the invocation happened is unknown (a timeout, a lost connection). */
  public Op info(Op invocation, Map<String, String> data) {
    return complete(invocation, Op.Type.INFO, invocation.value(), data);
  }

  /** Completes {@code invocation} with {@code type} and a value of the completion's own (e.g. the task a claim got). */
  public Op complete(Op invocation, Op.Type type, String value, Map<String, String> data) {
    if (invocation.type() != Op.Type.INVOKE) {
      throw new IllegalArgumentException("not an invocation: " + invocation);
    }
    Map<String, String> merged = new HashMap<>(invocation.data());
    merged.putAll(data);
    return append(invocation.process(), type, invocation.f(), value, merged, invocation.index());
  }

  /** Something {@code process} saw happen (an event on a stream, a request delivered). */
  public Op observe(String process, String f, String value, Map<String, String> data) {
    return append(process, Op.Type.OK, f, value, data, -1);
  }

  /** Appends a prepared entry as is (hand-made histories in tests); its index and times are kept. */
  public synchronized Op append(Op op) {
    Op stored = new Op(ops.size(), op.process(), op.type(), op.f(), op.value(), op.data(), op.invoke(), op.nanos(), op.wallMillis());
    ops.add(stored);
    return stored;
  }

  private synchronized Op append(String process, Op.Type type, String f, String value, Map<String, String> data, long invoke) {
    Op op = new Op(ops.size(), process, type, f, value, data, invoke, System.nanoTime(), System.currentTimeMillis());
    ops.add(op);
    return op;
  }

  /** A snapshot of every entry, in the order recorded. */
  public synchronized List<Op> ops() {
    return List.copyOf(ops);
  }

  /** The entries that match. */
  public List<Op> select(Predicate<Op> which) {
    return ops().stream().filter(which).toList();
  }

  /** Completions of {@code f} of this type. */
  public List<Op> completions(String f, Op.Type type) {
    return select(o -> o.is(type, f) && o.invoke() >= 0);
  }

  /** Observations of {@code f} (ok entries with no invocation). */
  public List<Op> observations(String f) {
    return select(o -> o.is(Op.Type.OK, f) && o.invoke() < 0);
  }

  /** The invocation of a completion. */
  public synchronized Op invocationOf(Op completion) {
    return ops.get((int) completion.invoke());
  }

  public synchronized int size() {
    return ops.size();
  }

  /** Counts by function and type, e.g. {@code send: invoke=450 ok=449 info=1}. */
  public String summary() {
    Map<String, Map<String, Integer>> counts = new TreeMap<>();
    for (Op op : ops()) {
      String type = op.type() == Op.Type.OK && op.invoke() < 0 ? "seen" : op.type().toString();
      counts.computeIfAbsent(op.f(), k -> new TreeMap<>()).merge(type, 1, Integer::sum);
    }
    StringBuilder out = new StringBuilder("history: " + size() + " ops");
    counts.forEach((f, byType) -> {
      out.append("\n  ").append(f).append(':');
      byType.forEach((t, n) -> out.append(' ').append(t).append('=').append(n));
    });
    return out.toString();
  }

  @Override
  public String toString() {
    return summary();
  }
}
