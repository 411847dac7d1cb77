package dev.conclave.e2e.swarm;

import dev.conclave.platform.config.PgUrl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;

/**
 * Where PostgreSQL's time goes during a phase, by swarm function ({@code track_functions = 'pl'}):
 * calls, total and self time, per call and per completed task (the gateway benchmark: per round
 * trip). Reset before the phase, printed after.
 */
public final class PgFunctionTimes {

  private PgFunctionTimes() {
  }

  public static void reset(PgUrl db, boolean statements) throws SQLException {
    try (Connection c = connect(db)) {
      c.createStatement().execute("SELECT pg_stat_reset()");
      if (statements) {
        c.createStatement().execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        c.createStatement().execute("SELECT pg_stat_statements_reset()");
      }
    }
  }

  /**
   * With pg_stat_statements loaded ({@code -Dswarm.bench.statements=true}): the statements, nested
   * ones inside the swarm functions included, that took the most execution time.
   */
  public static void printStatements(PgUrl db, long tasks, int top) throws SQLException {
    try (Connection c = connect(db)) {
      ResultSet rs = c.createStatement().executeQuery(
        "SELECT calls, total_exec_time, total_plan_time, plans, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements"
          + " ORDER BY total_exec_time + total_plan_time DESC LIMIT " + top);
      System.out.printf(Locale.ROOT, "  %9s %10s %10s %9s %10s  %s%n", "calls", "µs/call", "µs/task", "plans", "plan µs/task",
        "statement (nested ones included)");
      while (rs.next()) {
        long calls = rs.getLong(1);
        double total = rs.getDouble(2);
        double plan = rs.getDouble(3);
        long plans = rs.getLong(4);
        String q = rs.getString(5);
        System.out.printf(Locale.ROOT, "  %9d %10.1f %10.1f %9d %10.1f  %s%n", calls, calls == 0 ? 0 : 1000 * total / calls,
          tasks == 0 ? 0 : 1000 * total / tasks, plans, tasks == 0 ? 0 : 1000 * plan / tasks, q.length() > 150 ? q.substring(0, 150) + "…" : q);
      }
    }
  }

  /** Prints the {@code top} functions by self time; {@code tasks} scales the per-task column. */
  static void print(PgUrl db, long tasks, int top) throws SQLException {
    try (Connection c = connect(db)) {
      // the statistics collector publishes at transaction end; a fresh snapshot is read here
      c.createStatement().execute("SELECT pg_stat_clear_snapshot()");
      ResultSet rs = c.createStatement().executeQuery(
        "SELECT funcname, calls, total_time, self_time FROM pg_stat_user_functions WHERE schemaname = 'swarm'"
          + " ORDER BY self_time DESC LIMIT " + top);
      System.out.printf(Locale.ROOT, "  %-28s %9s %12s %12s %12s %12s%n", "swarm function (self time order)", "calls",
        "total µs/call", "self µs/call", "self µs/task", "total ms");
      while (rs.next()) {
        long calls = rs.getLong(2);
        double total = rs.getDouble(3);
        double self = rs.getDouble(4);
        System.out.printf(Locale.ROOT, "  %-28s %9d %12.1f %12.1f %12.1f %12.0f%n", rs.getString(1), calls,
          calls == 0 ? 0 : 1000 * total / calls, calls == 0 ? 0 : 1000 * self / calls, tasks == 0 ? 0 : 1000 * self / tasks, total);
      }
    }
  }

  private static Connection connect(PgUrl db) throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
  }
}
