package dev.conclave.swarm.store;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.retention.RetentionRule;

import java.time.Duration;

/** The retention of finished swarm tasks and their history ({@code CONCLAVE_SWARM_TASK_RETENTION_DAYS}); live tasks never go. */
public final class TaskRetention {

  private static final SqlFile SQL = SqlFile.of(TaskRetention.class, "task_retention.sql");

  private TaskRetention() {
  }

  public static RetentionRule rule(Duration window) {
    return new RetentionRule("tasks", limit -> SQL.get("DeleteBatch").with("window_s", window.toSeconds()).with("limit", limit));
  }
}
