package dev.conclave.e2e.bench;

import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What every table of the node's database weighs on disk ({@code pg_total_relation_size}: heap,
 * indexes, TOAST) and holds, after a VACUUM ANALYZE and a CHECKPOINT, so that two snapshots taken
 * around some work give the bytes and rows the work added.
 */
final class DiskGrowth {

  record Table(long bytes, long rows) {
  }

  record Snapshot(Map<String, Table> tables, long requests, long events) {
    long bytes() {
      return tables.values().stream().mapToLong(Table::bytes).sum();
    }
  }

  private DiskGrowth() {
  }

  static Snapshot take(SqlClient db) {
    BenchDb.command(db, "VACUUM ANALYZE");
    BenchDb.command(db, "CHECKPOINT");
    Map<String, Table> tables = new TreeMap<>();
    for (Row r : BenchDb.rows(db, "Sizes")) {
      tables.put(r.getString("rel"), new Table(r.getLong("bytes"), r.getLong("live")));
    }
    Row counts = BenchDb.row(db, "Counts");
    return new Snapshot(tables, counts.getLong("requests"), counts.getLong("events"));
  }

  /** Prints each table that grew, per {@code unit} ("round trip", "agent"). */
  static void print(String what, Snapshot before, Snapshot after, long units, String unit) {
    System.out.printf(Locale.ROOT, "%n%s: %d × %s; tables that grew (bytes on disk incl. indexes and TOAST, live rows):%n", what, units, unit);
    String header = String.format(Locale.ROOT, "%-34s %12s %12s %10s %12s", "table", "bytes added", "per " + unit, "rows added", "rows per " + unit);
    System.out.println(header);
    System.out.println("-".repeat(header.length()));
    after.tables().forEach((name, t) -> {
      Table b = before.tables().getOrDefault(name, new Table(0, 0));
      long bytes = t.bytes() - b.bytes();
      long rows = t.rows() - b.rows();
      if (bytes != 0 || rows != 0) {
        System.out.printf(Locale.ROOT, "%-34s %12d %12.0f %10d %12.2f%n", name, bytes, (double) bytes / units, rows, (double) rows / units);
      }
    });
    long total = after.bytes() - before.bytes();
    System.out.printf(Locale.ROOT, "%-34s %12d %12.0f%n", "all tables", total, (double) total / units);
  }

  /** Bytes per round trip, events per round trip, and what that makes per agent per day at a few rates. */
  static void printPerDay(Snapshot before, Snapshot after) {
    long requests = after.requests() - before.requests();
    if (requests <= 0) {
      throw new IllegalStateException("no request was written while measuring data growth");
    }
    double bytesPerMessage = (double) (after.bytes() - before.bytes()) / requests;
    double eventsPerMessage = (double) (after.events() - before.events()) / requests;
    System.out.printf(Locale.ROOT, "%ndata growth: %d round trips (requests) wrote %d ledger events: %.2f events and %.0f bytes on disk "
      + "per round trip%n", requests, after.events() - before.events(), eventsPerMessage, bytesPerMessage);
    String header = String.format(Locale.ROOT, "%-28s %14s %14s %14s", "messages per agent per day", "events/day", "MB/day", "GB per 90 days");
    System.out.println(header);
    System.out.println("-".repeat(header.length()));
    for (int rate : new int[] {100, 1_000, 10_000}) {
      double bytes = rate * bytesPerMessage;
      System.out.printf(Locale.ROOT, "%-28d %14.0f %14.2f %14.2f%n", rate, rate * eventsPerMessage, bytes / 1e6, 90 * bytes / 1e9);
    }
  }
}
