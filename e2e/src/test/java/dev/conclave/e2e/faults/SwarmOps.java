package dev.conclave.e2e.faults;

import java.time.Instant;

/**
 * The vocabulary of swarm histories: what {@link SwarmLoad} records and {@link SwarmChecker} reads.
 * Every call is an invocation completed by ok (a 200 answer), fail (a 4xx: certainly not done) or
 * info (no answer, 5xx: it may have been done); a retry is a new invocation.
 *
 * <ul>
 *   <li>{@code create} (loader): value = task id prefix, data count.</li>
 *   <li>{@code register} (claimer-N): value = agent id.</li>
 *   <li>{@code claim}: data agent; ok value = the task id, or empty with data reason when there was
 *       nothing to claim.</li>
 *   <li>{@code lease-acquire}: value = file, data agent, task; ok data granted (true/false) and
 *       expiresAt, or heldBy and heldUntil.</li>
 *   <li>{@code lease-release}: value = file, data agent, task; ok data released.</li>
 *   <li>{@code complete}: value = task id, data agent.</li>
 * </ul>
 */
public final class SwarmOps {

  public static final String CREATE = "create";
  public static final String REGISTER = "register";
  public static final String CLAIM = "claim";
  public static final String LEASE_ACQUIRE = "lease-acquire";
  public static final String LEASE_RELEASE = "lease-release";
  public static final String COMPLETE = "complete";

  public static final String AGENT = "agent";
  public static final String TASK = "task";
  public static final String COUNT = "count";
  public static final String REASON = "reason";
  public static final String GRANTED = "granted";
  public static final String EXPIRES_AT = "expiresAt";
  public static final String HELD_BY = "heldBy";
  public static final String HELD_UNTIL = "heldUntil";
  public static final String RELEASED = "released";
  public static final String STATUS = "status";
  public static final String ERROR = "error";

  private SwarmOps() {
  }

  /** The instant an ISO-8601 time of the coordinator names, as {@link System#nanoTime()} of the op that reported it. */
  static long nanosOf(Op reportedBy, String iso) {
    long millis = Instant.parse(iso).toEpochMilli();
    return reportedBy.nanos() + (millis - reportedBy.wallMillis()) * 1_000_000L;
  }
}
