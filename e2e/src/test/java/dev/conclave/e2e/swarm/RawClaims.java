package dev.conclave.e2e.swarm;

import dev.conclave.platform.config.PgUrl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The baseline the coordinator is measured against: the bare single-statement claim
 * ({@code UPDATE ... WHERE id = (SELECT ... FOR UPDATE SKIP LOCKED LIMIT 1)}), one autocommitted
 * statement per claim, by {@code clients} JDBC connections in parallel, on the swarm.tasks table.
 */
final class RawClaims {

  static final String CLAIM = "UPDATE swarm.tasks SET status = 'claimed', assigned_agent = ?, claimed_at = now(), updated_at = now() "
    + "WHERE id = (SELECT id FROM swarm.tasks WHERE status = 'ready' ORDER BY swarm.priority_rank(priority), created_at, seq "
    + "LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id";

  record Result(long claims, Duration took) {
    double perSecond() {
      return claims / (took.toNanos() / 1e9);
    }
  }

  private RawClaims() {
  }

  /** Claims until nothing is ready, {@code limit} claims were made, or {@code budget} has passed. */
  static Result run(PgUrl url, int clients, long limit, Duration budget) throws Exception {
    AtomicLong claims = new AtomicLong();
    long deadline = System.nanoTime() + budget.toNanos();
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Connection> connections = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      connections.add(DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null)));
    }
    long t0 = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      Connection c = connections.get(i);
      String agent = "raw-" + i;
      Thread t = new Thread(() -> {
        try (PreparedStatement st = c.prepareStatement(CLAIM)) {
          st.setString(1, agent);
          while (System.nanoTime() < deadline && claims.get() < limit) {
            try (ResultSet rs = st.executeQuery()) {
              if (!rs.next()) {
                return;
              }
              claims.incrementAndGet();
            }
          }
        } catch (SQLException e) {
          failures.add(e);
        }
      }, "raw-claim-" + i);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    for (Connection c : connections) {
      c.close();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("raw claims failed: " + failures.get(0), failures.get(0));
    }
    return new Result(claims.get(), took);
  }
}
