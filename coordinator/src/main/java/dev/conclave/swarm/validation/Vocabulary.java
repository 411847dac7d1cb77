package dev.conclave.swarm.validation;

import java.util.List;

/** The enumerations of the Jetpack protocol (and of task management), as they appear on the wire. */
public final class Vocabulary {

  public static final String PROTOCOL_VERSION = "1.0";

  public static final List<String> AGENT_TYPES = List.of("claude-code", "codex", "gemini", "browser", "custom");
  public static final List<String> AGENT_STATUSES = List.of("idle", "busy", "error");
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

  private Vocabulary() {
  }
}
