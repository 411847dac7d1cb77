package dev.conclave.e2e.faults;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * No acknowledged completion is missing afterwards: every COMPLETE answered 200 left its task
 * completed (or in needs_review, when the quality gate stopped it) by that agent, with a
 * {@code completed} or {@code needs_review} event of that agent in the task's history.
 */
final class Completions {

  static final String NAME = "acked-completions-durable";

  private Completions() {
  }

  static Invariant check(List<Op> ops, SwarmState state) {
    Invariant inv = new Invariant(NAME);
    Map<String, SwarmState.Task> tasks = new HashMap<>();
    state.tasks().forEach(t -> tasks.put(t.id(), t));
    for (SwarmState.Task t : state.tasks()) {
      inv.count("tasks");
      inv.count("status." + t.status());
    }
    for (Op op : ops) {
      if (op.f().equals(SwarmOps.COMPLETE) && op.invoke() >= 0 && op.type() != Op.Type.OK) {
        inv.count(op.type() == Op.Type.FAIL ? "completeRefused" : "completeIndeterminate");
      }
      if (!op.is(Op.Type.OK, SwarmOps.COMPLETE) || op.invoke() < 0) {
        continue;
      }
      inv.count("completesAcked");
      String task = op.value();
      String agent = op.str(SwarmOps.AGENT);
      SwarmState.Task row = tasks.get(task);
      if (row == null) {
        inv.violation("task " + task + " was completed by " + agent + " (acked) but is not in swarm.tasks");
        continue;
      }
      boolean finished = row.status().equals("completed") || row.status().equals("needs_review");
      if (!finished || !row.completedBy().orElse("").equals(agent)) {
        inv.violation("task " + task + " was completed by " + agent + " (acked) but is " + row.status() + " completed by "
          + row.completedBy().orElse("nobody"));
      }
      boolean recorded = state.events().stream().anyMatch(e -> e.taskId().equals(task) && e.kind().equals("task")
        && (e.event().equals("completed") || e.event().equals("needs_review")) && e.str("agentId").equals(agent));
      if (!recorded) {
        inv.violation("task " + task + " was completed by " + agent + " (acked) but its history has no such completion");
      }
    }
    return inv;
  }
}
