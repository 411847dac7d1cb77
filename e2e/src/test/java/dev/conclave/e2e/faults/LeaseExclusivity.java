package dev.conclave.e2e.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * No two agents hold an unexpired lease on the same file at the same time.
 *
 * <p>Per the acks: a granted ACQUIRE_LEASE means its agent surely held the file from the ack until
 * the earliest of the lease's expiry (the coordinator's time, mapped onto the op's clock), and the
 * moment the agent asked to give it up (its RELEASE_LEASE, or the COMPLETE that releases the task's
 * leases, whichever it invoked next for that task). Two such intervals of different agents on one
 * file must not overlap. Intervals are the ones the acks prove, so a true violation is never missed
 * by more than a round trip and none is reported that did not happen.
 *
 * <p>Per the coordinator's task history: lease events (acquired, taken over, extended, released,
 * expired) give each holding's start and end on the coordinator's clock; the history does not keep
 * the file, so it comes from the acquires the load recorded for the task (a task whose acquires name
 * several files is left out).
 */
final class LeaseExclusivity {

  static final String NAME = "leases-exclusive";

  private record Holding(String agent, String task, long start, long end, String how) {
  }

  private LeaseExclusivity() {
  }

  static Invariant check(List<Op> ops, SwarmState state) {
    Invariant inv = new Invariant(NAME);
    Map<String, List<Holding>> acked = new HashMap<>();
    Map<String, Set<String>> filesOfTask = new HashMap<>();
    for (Op op : ops) {
      if (op.is(Op.Type.INVOKE, SwarmOps.LEASE_ACQUIRE)) {
        filesOfTask.computeIfAbsent(op.str(SwarmOps.TASK), k -> new HashSet<>()).add(op.value());
      }
      if (!op.is(Op.Type.OK, SwarmOps.LEASE_ACQUIRE) || op.invoke() < 0) {
        continue;
      }
      inv.count("acquiresAcked");
      if (!"true".equals(op.str(SwarmOps.GRANTED))) {
        inv.count("refused");
        continue;
      }
      inv.count("granted");
      long end = SwarmOps.nanosOf(op, op.str(SwarmOps.EXPIRES_AT));
      for (Op later : ops.subList((int) op.index() + 1, ops.size())) {
        if (later.type() == Op.Type.INVOKE && later.process().equals(op.process()) && later.str(SwarmOps.TASK).equals(op.str(SwarmOps.TASK))
          && (later.f().equals(SwarmOps.LEASE_RELEASE) || later.f().equals(SwarmOps.COMPLETE))) {
          end = Math.min(end, later.nanos());
          break;
        }
      }
      acked.computeIfAbsent(op.value(), k -> new ArrayList<>()).add(new Holding(op.str(SwarmOps.AGENT), op.str(SwarmOps.TASK),
        op.nanos(), end, "acked #" + op.index()));
    }
    acked.forEach((file, holdings) -> overlaps(inv, file, holdings, "per the acks", 1_000_000L));
    Map<String, List<Holding>> recorded = fromHistory(inv, state, filesOfTask);
    recorded.forEach((file, holdings) -> overlaps(inv, file, holdings, "in the coordinator's history", 0));
    return inv;
  }

  private static Map<String, List<Holding>> fromHistory(Invariant inv, SwarmState state, Map<String, Set<String>> filesOfTask) {
    Map<String, List<Holding>> out = new HashMap<>();
    Map<String, List<SwarmState.Event>> byTask = new HashMap<>();
    state.events().stream().filter(e -> e.kind().equals("lease")).forEach(e -> byTask.computeIfAbsent(e.taskId(), k -> new ArrayList<>()).add(e));
    byTask.forEach((task, events) -> {
      Set<String> files = filesOfTask.getOrDefault(task, Set.of());
      if (files.size() != 1) {
        inv.count("leaseHistoriesSkipped");
        return;
      }
      String file = files.iterator().next();
      events.sort(Comparator.comparingLong(SwarmState.Event::seq));
      String agent = null;
      long start = 0;
      long expires = 0;
      for (SwarmState.Event e : events) {
        long at = e.at().toEpochMilli();
        switch (e.event()) {
          case "acquired", "taken_over" -> {
            if (agent != null) {
              out.computeIfAbsent(file, k -> new ArrayList<>()).add(new Holding(agent, task, start, Math.min(expires, at), "seq " + e.seq()));
            }
            agent = e.str("agentId");
            start = at;
            expires = java.time.Instant.parse(e.str("expiresAt")).toEpochMilli();
          }
          case "extended" -> expires = Math.max(expires, java.time.Instant.parse(e.str("expiresAt")).toEpochMilli());
          case "released", "expired" -> {
            if (agent != null) {
              out.computeIfAbsent(file, k -> new ArrayList<>()).add(new Holding(agent, task, start, Math.min(expires, at), "seq " + e.seq()));
              agent = null;
            }
          }
          default -> {
          }
        }
      }
      if (agent != null) {
        out.computeIfAbsent(file, k -> new ArrayList<>()).add(new Holding(agent, task, start, expires, "still held"));
      }
      inv.count("leaseHistoriesChecked");
    });
    return out;
  }

  /** Reports each pair of holdings by different agents that overlap by more than {@code slack} (clock units). */
  private static void overlaps(Invariant inv, String file, List<Holding> holdings, String source, long slack) {
    List<Holding> sorted = holdings.stream().sorted(Comparator.comparingLong(Holding::start)).toList();
    for (int i = 0; i < sorted.size(); i++) {
      Holding a = sorted.get(i);
      for (int j = i + 1; j < sorted.size() && sorted.get(j).start() < a.end(); j++) {
        Holding b = sorted.get(j);
        if (!a.agent().equals(b.agent()) && b.start() + slack < a.end() && a.start() < b.end()) {
          inv.violation(file + " held by " + a.agent() + " (task " + a.task() + ", " + a.how() + ") and by " + b.agent() + " (task " + b.task()
            + ", " + b.how() + ") at once " + source);
        }
      }
    }
  }
}
