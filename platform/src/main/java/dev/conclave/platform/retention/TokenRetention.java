package dev.conclave.platform.retention;

import dev.conclave.platform.db.sql.SqlFile;

import java.time.Duration;

/** The retention of token records: every agent registration adds one, and nothing else ever removes them. */
public final class TokenRetention {

  private static final SqlFile SQL = SqlFile.of(TokenRetention.class, "token_retention.sql");

  private TokenRetention() {
  }

  /** Tokens expired, or revoked and expired, more than {@code window} ago. */
  public static RetentionRule rule(Duration window) {
    return new RetentionRule("tokens", limit -> SQL.get("DeleteBatch").with("window_s", window.toSeconds()).with("limit", limit));
  }
}
