package dev.conclave.agentruntime.swarm;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How the agent program works as a swarm agent (docs/swarm-agents.md). The settings come from
 * {@code --swarm-url}, {@code --skills}, {@code --max-task-minutes}, {@code --quality-command},
 * {@code --claim-wait} and {@code --lease-wait}; the heartbeat intervals are the protocol's (30 s
 * idle, 10 s busy) and the rest are fixed, but tests may shorten them.
 *
 * @param url the coordinator's HTTP address; empty: the node the agent connected to
 * @param agentType the protocol's agent type, from the backend ({@code claude-code}, {@code codex}, {@code custom})
 * @param qualityCommand run with {@code sh -c} before COMPLETE
 * @param claimWait the longest wait between claims while nothing is eligible
 * @param leaseWait how long a tool waits for a file another agent holds
 * @param idleHeartbeat the heartbeat interval without a task (the protocol's 30 s)
 * @param busyHeartbeat the heartbeat interval with a task (the protocol's 10 s)
 * @param progressInterval the least time between two PROGRESS reports of a task
 * @param stopGrace how long a stop lets the task in hand finish before it releases it
 */
public record SwarmConfig(Optional<URI> url, String agentType, List<String> skills, int maxTaskMinutes,
                          Optional<String> qualityCommand, Duration claimWait, Duration leaseWait,
                          Duration idleHeartbeat, Duration busyHeartbeat, Duration progressInterval, Duration stopGrace) {

  public static final Duration IDLE_HEARTBEAT = Duration.ofSeconds(30);
  public static final Duration BUSY_HEARTBEAT = Duration.ofSeconds(10);
  public static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);
  public static final Duration STOP_GRACE = Duration.ofSeconds(5);

  public SwarmConfig {
    skills = List.copyOf(skills);
  }

  /** The same, with other heartbeat intervals (tests). */
  public SwarmConfig withHeartbeats(Duration idle, Duration busy) {
    return new SwarmConfig(url, agentType, skills, maxTaskMinutes, qualityCommand, claimWait, leaseWait, idle, busy,
      progressInterval, stopGrace);
  }

  /** The task deadline after a claim. */
  public Duration maxTaskTime() {
    return Duration.ofMinutes(maxTaskMinutes);
  }
}
