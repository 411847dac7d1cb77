package dev.conclave.platform.db;

import dev.conclave.platform.db.sql.SqlFile;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a schema's Flyway history already records every script of this build, exactly: the cheap
 * question a node asks before it starts Flyway, whose validation of an up-to-date schema cost about
 * 0.2 s per schema and operation on every start (issue 45).
 *
 * <p>The answer is yes only when the history is as a clean run of these very scripts leaves it: each
 * versioned script applied once, successfully, with the checksum its file has now; each repeatable
 * script's latest run with its file's checksum; no failed row; no applied script this build lacks;
 * nothing but Flyway's schema marker besides. Any other history (a pending script, an edited one, a
 * failure, a repair's marks, a newer node's script) answers no, with the first difference, and Flyway
 * then validates and migrates as it always did: a changed applied migration is still refused, by
 * Flyway, in its own words.
 */
final class AppliedMigrations {

  private static final SqlFile SQL = SqlFile.of(AppliedMigrations.class, "history.sql");

  /** The answer for one schema: up to date at {@code version}, or not, because of {@code difference}. */
  record Verdict(boolean upToDate, String version, String difference) {

    private static final String NO_HISTORY = "no history yet";

    static Verdict current(String version) {
      return new Verdict(true, version, "");
    }

    static Verdict differs(String difference) {
      return new Verdict(false, "", difference);
    }

    /** The schema has no history table at all: Flyway has never run on it. */
    boolean noHistory() {
      return !upToDate && NO_HISTORY.equals(difference);
    }
  }

  /** One row of {@code flyway_schema_history}. */
  record Row(int rank, String version, String script, Integer checksum, String type, boolean success) {
  }

  private AppliedMigrations() {
  }

  /** Reads the history of {@code scripts}' schema over {@code connection} (its search path is changed) and compares. */
  static Verdict check(Connection connection, MigrationScripts scripts) throws SQLException {
    return check(connection, scripts, Set.of());
  }

  /**
   * As {@link #check(Connection, MigrationScripts)};
   * the repeatable scripts named in {@code retired} ({@link SchemaMigration#retired}) may be in the history.
   */
  static Verdict check(Connection connection, MigrationScripts scripts, Set<String> retired) throws SQLException {
    connection.setSchema(scripts.schema());
    try (Statement s = connection.createStatement()) {
      try (ResultSet present = s.executeQuery(SQL.get("HistoryExists").sql())) {
        if (!present.next() || !present.getBoolean(1)) {
          return Verdict.differs(Verdict.NO_HISTORY);
        }
      }
      List<Row> rows = new ArrayList<>();
      try (ResultSet rs = s.executeQuery(SQL.get("History").sql())) {
        while (rs.next()) {
          int checksum = rs.getInt("checksum");
          rows.add(new Row(rs.getInt("installed_rank"), rs.getString("version"), rs.getString("script"),
            rs.wasNull() ? null : checksum, rs.getString("type"), rs.getBoolean("success")));
        }
      }
      return compare(scripts.scripts(), rows, retired);
    }
  }

  /**
   * As {@link #check(Connection, MigrationScripts, Set)}, over the node's own connection in a transaction
   * {@code tx} (a node's start reads the history this way, without JDBC: no second driver to load, no
   * second password exchange). The schema is the search path for the transaction only.
   */
  static io.vertx.core.Future<Verdict> check(io.vertx.sqlclient.SqlConnection tx, MigrationScripts scripts, Set<String> retired) {
    return SQL.get("UseSchema").with("schema", scripts.schema()).execute(tx)
      .compose(set -> SQL.get("HistoryExists").execute(tx))
      .compose(present -> {
        if (!present.iterator().next().getBoolean("present")) {
          return io.vertx.core.Future.succeededFuture(Verdict.differs(Verdict.NO_HISTORY));
        }
        return SQL.get("History").execute(tx).map(rs -> {
          List<Row> rows = new ArrayList<>();
          for (io.vertx.sqlclient.Row r : rs) {
            rows.add(new Row(r.getInteger("installed_rank"), r.getString("version"), r.getString("script"), r.getInteger("checksum"),
              r.getString("type"), r.getBoolean("success")));
          }
          return compare(scripts.scripts(), rows, retired);
        });
      });
  }

  /** The comparison itself, on rows in {@code installed_rank} order. */
  static Verdict compare(List<MigrationScripts.Script> scripts, List<Row> rows) {
    return compare(scripts, rows, Set.of());
  }

  /** As {@link #compare(List, List)}, the successful runs of the repeatable scripts named in {@code retired} passed over. */
  static Verdict compare(List<MigrationScripts.Script> scripts, List<Row> rows, Set<String> retired) {
    Map<String, MigrationScripts.Script> byName = new HashMap<>();
    scripts.forEach(s -> byName.put(s.name(), s));
    Map<String, Row> latest = new HashMap<>();
    Set<String> versionedSeen = new HashSet<>();
    String version = "none";
    for (Row row : rows) {
      if (row.type().equals("SCHEMA")) {
        continue; // Flyway's note that it created the schema
      }
      if (!row.type().equals("SQL")) {
        return Verdict.differs("a " + row.type() + " entry (rank " + row.rank() + ")");
      }
      if (!row.success()) {
        return Verdict.differs("a failed migration " + row.script());
      }
      MigrationScripts.Script script = byName.get(row.script());
      if (script == null && row.version() == null && retired.contains(row.script())) {
        continue; // a repeatable this build replaced by others: its functions are theirs now
      }
      if (script == null) {
        return Verdict.differs("applied " + row.script() + " is not in this build");
      }
      if (script.repeatable() != (row.version() == null)) {
        return Verdict.differs(row.script() + " changed kind");
      }
      if (!script.repeatable()) {
        if (!versionedSeen.add(row.script())) {
          return Verdict.differs(row.script() + " applied twice");
        }
        version = row.version();
      }
      latest.put(row.script(), row);
    }
    for (MigrationScripts.Script script : scripts) {
      Row row = latest.get(script.name());
      if (row == null) {
        return Verdict.differs(script.name() + " not applied yet");
      }
      if (row.checksum() == null || row.checksum() != script.checksum()) {
        return Verdict.differs(script.name() + " differs from the one applied (checksum " + script.checksum() + ", applied "
          + row.checksum() + ")");
      }
    }
    return Verdict.current(version);
  }
}
