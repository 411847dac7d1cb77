package dev.conclave.gateway.retention;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.retention.RetentionRule;

import java.time.Duration;
import java.util.List;

/**
 * The gateway's retention rules: ledger events past {@code CONCLAVE_CONVERSATION_RETENTION_DAYS},
 * except each conversation's latest {@code CONCLAVE_CONVERSATION_KEEP_EVENTS} and those of requests
 * still queued or dispatched; then finished requests past {@code CONCLAVE_REQUEST_RETENTION_DAYS}
 * that no kept event names. Events go first, so that a request whose events went in this run goes too.
 * An agent with an override ({@link AgentRetentionStore}) has its own window and kept events where
 * set, and its requests follow its window; the statements apply both in the same batches.
 */
public final class ConversationRetention {

  static final SqlFile SQL = SqlFile.of(ConversationRetention.class, "conversation_retention.sql");

  private ConversationRetention() {
  }

  public static List<RetentionRule> rules(ConclaveConfig config) {
    return rules(config.get(GatewaySettings.CONVERSATION_RETENTION), config.get(GatewaySettings.CONVERSATION_KEEP_EVENTS),
      config.get(GatewaySettings.REQUEST_RETENTION));
  }

  public static List<RetentionRule> rules(Duration events, int keep, Duration requests) {
    return List.of(
      new RetentionRule("events", limit -> SQL.get("DeleteEvents").with("window_s", events.toSeconds()).with("keep", keep)
        .with("limit", limit)),
      new RetentionRule("requests", limit -> SQL.get("DeleteRequests").with("window_s", requests.toSeconds()).with("limit", limit)));
  }
}
