package dev.conclave.e2e.faults;

import dev.conclave.platform.config.PgUrl;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Checks a swarm history ({@link SwarmLoad}, {@link SwarmOps}) against what the coordinator
 * committed to PostgreSQL: {@value TaskClaims#NAME}, {@value LeaseExclusivity#NAME},
 * {@value Completions#NAME}. {@link #check(History, PgUrl)} reads the tables;
 * {@link #check(History, SwarmState)} is the pure logic, for hand-made states.
 */
public final class SwarmChecker {

  private SwarmChecker() {
  }

  /** Reads every task the history names or whose id starts with a prefix it created, then checks. */
  public static Verdict check(History history, PgUrl db) {
    Set<String> ids = new TreeSet<>();
    Set<String> prefixes = new TreeSet<>();
    for (Op op : history.ops()) {
      if (op.f().equals(SwarmOps.CREATE)) {
        prefixes.add(op.value());
      } else if (op.f().equals(SwarmOps.COMPLETE) || (op.f().equals(SwarmOps.CLAIM) && op.type() == Op.Type.OK)) {
        if (!op.value().isEmpty()) {
          ids.add(op.value());
        }
      }
      op.get(SwarmOps.TASK).ifPresent(ids::add);
    }
    return check(history, SwarmState.read(db, ids, prefixes));
  }

  public static Verdict check(History history, SwarmState state) {
    List<Op> ops = history.ops();
    return new Verdict("swarm", List.of(
      TaskClaims.check(ops, state),
      LeaseExclusivity.check(ops, state),
      Completions.check(ops, state)));
  }
}
