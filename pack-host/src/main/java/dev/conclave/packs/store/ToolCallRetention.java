package dev.conclave.packs.store;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.retention.RetentionRule;

import java.time.Duration;

/** The retention of the tool-call log ({@link ToolCallLog}, {@code CONCLAVE_TOOL_CALL_RETENTION_DAYS}). */
public final class ToolCallRetention {

  private static final SqlFile SQL = SqlFile.of(ToolCallRetention.class, "tool_call_retention.sql");

  private ToolCallRetention() {
  }

  public static RetentionRule rule(Duration window) {
    return new RetentionRule("tool-calls", limit -> SQL.get("DeleteBatch").with("window_s", window.toSeconds()).with("limit", limit));
  }
}
