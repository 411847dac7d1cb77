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
 * expired) give each holding. A grant to another agent must come after the holder's release or
 * expiry event in {@code seq} order, or at a coordinator time at or past the holder's expiry (a take
 * over). Not by comparing times alone: a batch of requests takes its "now" once, before it waits
 * for row locks, so a grant committed after a release on another node can carry an earlier time;
 * {@code seq} is drawn when the event is written, after the lock, so it follows the row's commit
 * order. The history does not keep the file, so it comes from the acquires the load recorded for
 * the task (a task whose acquires name several files is left out).
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
    acked.forEach((file, holdings) -> overlaps(inv, file, holdings, 1_000_000L));
    checkHistory(inv, state, filesOfTask);
    return inv;
  }

  /**
   * A holding as the coordinator recorded it: from the event that granted it ({@code startSeq}, at
   * the coordinator's time {@code startAt}) until its release or expiry event ({@code endSeq}, or
   * none) or its expiry time, whichever came first.
   */
  private record Recorded(String agent, String task, long startSeq, long endSeq, long startAt, long expiresAt) {
  }

  private static void checkHistory(Invariant inv, SwarmState state, Map<String, Set<String>> filesOfTask) {
    Map<String, List<Recorded>> byFile = new HashMap<>();
    Map<String, List<SwarmState.Event>> byTask = new HashMap<>();
    state.events().stream().filter(e -> e.kind().equals("lease")).forEach(e -> byTask.computeIfAbsent(e.taskId(), k -> new ArrayList<>()).add(e));
    byTask.forEach((task, events) -> {
      Set<String> files = filesOfTask.getOrDefault(task, Set.of());
      if (files.size() != 1) {
        inv.count("leaseHistoriesSkipped");
        return;
      }
      List<Recorded> out = byFile.computeIfAbsent(files.iterator().next(), k -> new ArrayList<>());
      events.sort(Comparator.comparingLong(SwarmState.Event::seq));
      SwarmState.Event granted = null;
      long expires = 0;
      for (SwarmState.Event e : events) {
        switch (e.event()) {
          case "acquired", "taken_over" -> {
            if (granted != null) {
              out.add(new Recorded(granted.str("agentId"), task, granted.seq(), e.seq(), granted.at().toEpochMilli(), expires));
            }
            granted = e;
            expires = java.time.Instant.parse(e.str("expiresAt")).toEpochMilli();
          }
          case "extended" -> expires = Math.max(expires, java.time.Instant.parse(e.str("expiresAt")).toEpochMilli());
          case "released", "expired" -> {
            if (granted != null) {
              out.add(new Recorded(granted.str("agentId"), task, granted.seq(), e.seq(), granted.at().toEpochMilli(), expires));
              granted = null;
            }
          }
          default -> {
          }
        }
      }
      if (granted != null) {
        out.add(new Recorded(granted.str("agentId"), task, granted.seq(), Long.MAX_VALUE, granted.at().toEpochMilli(), expires));
      }
      inv.count("leaseHistoriesChecked");
    });
    byFile.forEach((file, holdings) -> {
      List<Recorded> sorted = holdings.stream().sorted(Comparator.comparingLong(Recorded::startSeq)).toList();
      for (int i = 0; i < sorted.size(); i++) {
        Recorded a = sorted.get(i);
        for (int j = i + 1; j < sorted.size() && sorted.get(j).startSeq() < a.endSeq(); j++) {
          Recorded b = sorted.get(j);
          if (!a.agent().equals(b.agent()) && b.startAt() < a.expiresAt()) {
            inv.violation(file + " granted to " + b.agent() + " (task " + b.task() + ", seq " + b.startSeq() + ") while " + a.agent() + " (task "
              + a.task() + ", seq " + a.startSeq() + ") held it: not released before (release seq "
              + (a.endSeq() == Long.MAX_VALUE ? "none" : a.endSeq()) + ") nor expired (" + (a.expiresAt() - b.startAt()) + " ms left)"
              + " in the coordinator's history");
          }
        }
      }
    });
  }

  /** Reports each pair of holdings by different agents that overlap by more than {@code slack} (clock units). */
  private static void overlaps(Invariant inv, String file, List<Holding> holdings, long slack) {
    List<Holding> sorted = holdings.stream().sorted(Comparator.comparingLong(Holding::start)).toList();
    for (int i = 0; i < sorted.size(); i++) {
      Holding a = sorted.get(i);
      for (int j = i + 1; j < sorted.size() && sorted.get(j).start() < a.end(); j++) {
        Holding b = sorted.get(j);
        if (!a.agent().equals(b.agent()) && b.start() + slack < a.end() && a.start() < b.end()) {
          inv.violation(file + " held by " + a.agent() + " (task " + a.task() + ", " + a.how() + ") and by " + b.agent() + " (task " + b.task()
            + ", " + b.how() + ") at once per the acks");
        }
      }
    }
  }
}
