package dev.conclave.e2e.faults;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.proto.coven.ClientStreamEvent;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * What the gateway committed for some conversations, read from its PostgreSQL tables as plain
 * records: the ledger ({@code gateway.events}) and the mailbox ({@code gateway.requests}).
 * {@link GatewayChecker} compares a history with it; tests build it by hand.
 */
public record GatewayLedger(List<Event> events, List<Request> requests) {

  /**
   * One ledger event. {@code recoverable} is the StreamError's flag for error and cancelled events
   * (false for others).
   */
  public record Event(String conversation, long seq, Optional<String> requestId, String kind, String author, String text,
                      boolean recoverable) {
  }

  /** One mailbox row. */
  public record Request(String id, String agentId, String conversation, String idempotencyKey, String state,
                        Optional<Instant> dispatchedAt, Optional<Instant> finishedAt, Optional<Long> dispatchEpoch) {
  }

  public GatewayLedger {
    events = List.copyOf(events);
    requests = List.copyOf(requests);
  }

  /** Reads the events and requests of these conversations. */
  public static GatewayLedger read(PgUrl db, Collection<String> conversations) {
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null))) {
      Array keys = c.createArrayOf("text", conversations.toArray());
      List<Event> events = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement("SELECT conversation_key, seq, request_id::text, kind, author, text, payload"
        + " FROM gateway.events WHERE conversation_key = ANY (?) ORDER BY conversation_key, seq")) {
        s.setArray(1, keys);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            events.add(new Event(r.getString(1), r.getLong(2), Optional.ofNullable(r.getString(3)), r.getString(4), r.getString(5),
              r.getString(6) == null ? "" : r.getString(6), recoverable(r.getBytes(7))));
          }
        }
      }
      List<Request> requests = new ArrayList<>();
      try (PreparedStatement s = c.prepareStatement("SELECT id::text, agent_id, conversation_key, idempotency_key, state,"
        + " dispatched_at, finished_at, dispatch_epoch FROM gateway.requests WHERE conversation_key = ANY (?) ORDER BY queue_seq")) {
        s.setArray(1, keys);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            requests.add(new Request(r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getString(5),
              instant(r, 6), instant(r, 7), Optional.ofNullable((Long) r.getObject(8))));
          }
        }
      }
      return new GatewayLedger(events, requests);
    } catch (SQLException e) {
      throw new IllegalStateException("reading the gateway's tables: " + e.getMessage(), e);
    }
  }

  private static Optional<Instant> instant(ResultSet r, int column) throws SQLException {
    java.sql.Timestamp t = r.getTimestamp(column);
    return Optional.ofNullable(t).map(java.sql.Timestamp::toInstant);
  }

  private static boolean recoverable(byte[] payload) {
    try {
      ClientStreamEvent view = ClientStreamEvent.parseFrom(payload);
      return view.hasError() && view.getError().getRecoverable();
    } catch (InvalidProtocolBufferException e) {
      return false;
    }
  }
}
