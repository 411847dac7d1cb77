package dev.conclave.swarm.validation;

import java.util.List;

/**
 * The enumerations of the Jetpack protocol (and of task management), as they appear on the wire.
 * The SQL (CHECK constraints in V1, the lists the R__ functions validate against) spells the same
 * lists; VocabularyTest fails when the two disagree.
 */
public final class Vocabulary {

  public static final String PROTOCOL_VERSION = "1.0";

  public static final List<String> AGENT_TYPES = List.of("claude-code", "codex", "gemini", "browser", "custom");
  public static final List<String> AGENT_STATUSES = List.of("idle", "busy", "error");
  /** What an agent's status may be when read back: what agents report, and offline (set by the coordinator). */
  public static final List<String> STORED_AGENT_STATUSES = List.of("idle", "busy", "error", "offline");
  public static final List<String> PRIORITIES = List.of("critical", "high", "medium", "low");
  public static final List<String> TASK_TYPES = List.of("code", "test", "browser_test", "documentation", "review", "custom");
  public static final List<String> TASK_STATUSES = List.of("blocked", "ready", "claimed", "in_progress", "needs_review",
    "completed", "pending_retry", "failed", "cancelled");
  public static final List<String> PHASES = List.of("analyzing", "planning", "implementing", "testing", "reviewing");
  public static final List<String> FAILURE_TYPES = List.of("task_error", "task_timeout", "dependency_error",
    "quality_failure", "resource_error", "agent_crash");
  public static final List<String> MESSAGE_TYPES = List.of("task.help_needed", "task.handoff", "file.lock_request",
    "coordination.sync", "info.discovery", "custom");
  public static final List<String> COMMAND_TYPES = List.of("SHUTDOWN", "RELEASE_TASK", "PING");
  /** An operator's decision on a task that needs review. */
  public static final List<String> REVIEW_DECISIONS = List.of("approve", "reject");
  /** What the coordinator's events are about. */
  public static final List<String> EVENT_KINDS = List.of("task", "agent", "lease", "message");

  private Vocabulary() {
  }
}
