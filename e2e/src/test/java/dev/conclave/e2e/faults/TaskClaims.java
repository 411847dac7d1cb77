package dev.conclave.e2e.faults;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * No task is claimed twice while a claim on it is still valid. A claim stays valid until the task
 * is completed, failed (by its agent, or as {@code agent_crash} when the agent went stale or offline)
 * or cancelled; after a failure a retry makes it ready and claimable again (docs/swarm.md, seed 001),
 * so a later claim is legal then. Checked in the coordinator's own task history (every task event,
 * committed with the change): walking a task's events in order, a {@code claimed} must never come
 * while another claim holds the task, nor after it completed. Checked against the acks too: every
 * claim a claimer was told it won is one of the claims the coordinator recorded, for that agent.
 */
final class TaskClaims {

  static final String NAME = "tasks-claimed-once";

  private TaskClaims() {
  }

  static Invariant check(List<Op> ops, SwarmState state) {
    Invariant inv = new Invariant(NAME);
    Map<String, List<SwarmState.Event>> byTask = state.events().stream().filter(e -> e.kind().equals("task"))
      .collect(Collectors.groupingBy(SwarmState.Event::taskId));
    Map<String, Map<String, Integer>> recorded = new HashMap<>();
    byTask.forEach((task, events) -> {
      String holder = null;
      long heldSince = -1;
      boolean completed = false;
      for (SwarmState.Event e : events.stream().sorted(java.util.Comparator.comparingLong(SwarmState.Event::seq)).toList()) {
        switch (e.event()) {
          case "claimed" -> {
            inv.count("claimsRecorded");
            String agent = e.str("agentId");
            recorded.computeIfAbsent(task, k -> new HashMap<>()).merge(agent, 1, Integer::sum);
            if (completed) {
              inv.violation("task " + task + " was claimed by " + agent + " at seq " + e.seq() + " after it completed");
            } else if (holder != null) {
              inv.violation("task " + task + " was claimed by " + agent + " at seq " + e.seq() + " while " + holder
                + "'s claim of seq " + heldSince + " was still valid");
            }
            holder = agent;
            heldSince = e.seq();
          }
          case "completed" -> {
            holder = null;
            completed = true;
          }
          case "failed", "cancelled" -> {
            if (e.event().equals("failed")) {
              inv.count("reclaimable");
            }
            holder = null;
          }
          default -> {
            // progress, needs_review, retry_ready, unblocked: the claim stands as it was
          }
        }
      }
    });
    Map<String, Map<String, Integer>> acked = new HashMap<>();
    for (Op op : ops) {
      if (op.is(Op.Type.OK, SwarmOps.CLAIM) && op.invoke() >= 0 && !op.value().isEmpty()) {
        inv.count("claimsAcked");
        acked.computeIfAbsent(op.value(), k -> new HashMap<>()).merge(op.str(SwarmOps.AGENT), 1, Integer::sum);
      }
    }
    acked.forEach((task, byAgent) -> byAgent.forEach((agent, n) -> {
      int known = recorded.getOrDefault(task, Map.of()).getOrDefault(agent, 0);
      if (n > known) {
        inv.violation(agent + " was told " + n + " time(s) that it claimed task " + task + " but the coordinator recorded " + known
          + " such claim(s)");
      }
    }));
    return inv;
  }
}
