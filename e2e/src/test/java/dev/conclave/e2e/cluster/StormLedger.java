package dev.conclave.e2e.cluster;

import dev.conclave.platform.config.PgUrl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether every request of a storm reached exactly one terminal event, from what the nodes
 * committed ({@code gateway.requests} and {@code gateway.events}, read over JDBC) and what the
 * agents were given. A request is <em>accepted</em> when a node told its client so or its row
 * exists; it is <em>lost</em> when it is accepted and has no terminal event (done, error,
 * cancelled), <em>duplicated</em> when it has more than one, or when an agent was given it twice.
 */
final class StormLedger {

  /** The verdict; the lists name a few of the requests concerned, for the report. */
  record Verdict(int accepted, int lost, int duplicated, int endedWithError, List<String> lostExamples, List<String> duplicatedExamples) {
  }

  private StormLedger() {
  }

  /**
   * @param keys idempotency keys the clients sent
   * @param acknowledged those a node accepted (told the client)
   * @param deliveries request id → how many times an agent was given it
   */
  static Verdict check(PgUrl db, Set<String> keys, Set<String> acknowledged, Map<String, AtomicInteger> deliveries) {
    Map<String, String> requestOf = new HashMap<>();
    Map<String, Integer> terminals = new HashMap<>();
    Map<String, Integer> errors = new HashMap<>();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null))) {
      try (PreparedStatement s = c.prepareStatement("SELECT idempotency_key, id::text FROM gateway.requests WHERE idempotency_key = ANY (?)")) {
        s.setArray(1, c.createArrayOf("text", keys.toArray()));
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            requestOf.put(r.getString(1), r.getString(2));
          }
        }
      }
      try (PreparedStatement s = c.prepareStatement("SELECT request_id::text, kind FROM gateway.events"
        + " WHERE kind IN ('done', 'error', 'cancelled') AND request_id IS NOT NULL")) {
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            terminals.merge(r.getString(1), 1, Integer::sum);
            if (!r.getString(2).equals("done")) {
              errors.merge(r.getString(1), 1, Integer::sum);
            }
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reading the gateway's tables: " + e.getMessage(), e);
    }
    int accepted = 0;
    int lost = 0;
    int duplicated = 0;
    int withError = 0;
    List<String> lostExamples = new ArrayList<>();
    List<String> duplicatedExamples = new ArrayList<>();
    for (String key : keys) {
      String request = requestOf.get(key);
      if (request == null) {
        if (acknowledged.contains(key)) {
          // a node said accepted, yet nothing was committed
          accepted++;
          lost++;
          example(lostExamples, key + " (accepted, no row)");
        }
        continue;
      }
      accepted++;
      int t = terminals.getOrDefault(request, 0);
      int given = deliveries.containsKey(request) ? deliveries.get(request).get() : 0;
      if (t == 0) {
        lost++;
        example(lostExamples, key + " (request " + request + ", given to an agent " + given + " times)");
      } else if (t > 1 || given > 1) {
        duplicated++;
        example(duplicatedExamples, key + " (request " + request + ": " + t + " terminal events, given " + given + " times)");
      }
      if (errors.containsKey(request)) {
        withError++;
      }
    }
    return new Verdict(accepted, lost, duplicated, withError, lostExamples, duplicatedExamples);
  }

  private static void example(List<String> into, String what) {
    if (into.size() < 10) {
      into.add(what);
    }
  }
}
