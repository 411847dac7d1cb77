package dev.conclave.agentruntime.swarm;

import java.time.Duration;
import java.util.Optional;

/**
 * A coordinator call that did not succeed: the problem the coordinator answered (status, code,
 * detail), or status 0 when it could not be reached. {@link #transientFailure} is the spec's
 * "transient error": worth retrying with backoff.
 */
public final class SwarmCallException extends RuntimeException {

  private final int status;
  private final String code;
  private final Optional<Duration> retryAfter;

  public SwarmCallException(int status, String code, String detail, Optional<Duration> retryAfter) {
    super(detail);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** The wait the coordinator asked for (429 {@code Retry-After}). */
  public Optional<Duration> retryAfter() {
    return retryAfter;
  }

  /** Unreachable, rate-limited, overloaded or a gateway in between failing: try again later. */
  public boolean transientFailure() {
    return status == 0 || status == 429 || status == 502 || status == 503 || status == 504;
  }

  @Override
  public String toString() {
    return "swarm call failed: " + (status == 0 ? "" : status + " ") + code + ": " + getMessage();
  }
}
