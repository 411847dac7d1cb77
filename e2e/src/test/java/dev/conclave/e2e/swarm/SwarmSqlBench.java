package dev.conclave.e2e.swarm;

import dev.conclave.e2e.bench.ProcCpu;
import dev.conclave.e2e.support.BenchMain;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.swarm.store.ProtocolStore;
import dev.conclave.swarm.store.SwarmSchema;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a claim+complete costs PostgreSQL alone (a program, not a test): no HTTP, no node, no other
 * session. One connection runs the coordinator's own batch statement ({@link ProtocolStore#DISPATCH}),
 * B CLAIMs of B agents, then their B COMPLETEs, autocommitted, until N tasks are done; then the raw
 * single-statement claim ({@link RawClaims#CLAIM}) N times on the same connection. It prints the
 * backend's CPU time (from /proc) and the wall time per task and per raw claim, and the time by swarm
 * function. Durable settings (fsync, synchronous_commit on). Properties: swarm.sql.tasks (10000),
 * swarm.sql.batch (15, the batch size SwarmBench's 64 agents reach), swarm.sql.rounds (3: the
 * claim+complete phase and the raw phase alternate, each on fresh tasks, and every round is printed),
 * swarm.sql.statements (false: also load pg_stat_statements and print the last round's statements),
 * swarm.sql.ladder (false: each round first runs {@link SqlLadder}'s rungs, each on fresh tasks: what
 * the same claims and completes cost with only part of the protocol's work).
 */
public final class SwarmSqlBench {

  private SwarmSqlBench() {
  }

  public static void main(String[] args) {
    BenchMain.run(SwarmSqlBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) throws Exception {
    int tasks = Integer.getInteger("swarm.sql.tasks", 10_000);
    int batch = Integer.getInteger("swarm.sql.batch", 15);
    int rounds = Integer.getInteger("swarm.sql.rounds", 3);
    Path dir = Files.createTempDirectory("swarm-sql-bench");
    boolean statements = Boolean.getBoolean("swarm.sql.statements");
    boolean ladder = Boolean.getBoolean("swarm.sql.ladder");
    Map<String, String> settings = new java.util.HashMap<>(
      Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on", "track_functions", "pl"));
    if (statements) {
      settings.putAll(Map.of("shared_preload_libraries", "pg_stat_statements", "pg_stat_statements.track", "all"));
    }
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), 0, settings);
    try {
      TestDatabase.execute(pg.url(), "CREATE DATABASE swarm_sql_bench");
      PgUrl db = pg.url().withDatabase("swarm_sql_bench");
      Migrations.apply(db, List.of(new SchemaMigration("auth"), SwarmSchema.MIGRATION));
      System.out.printf(Locale.ROOT, "swarm sql bench: tasks=%d batch=%d rounds=%d, one connection, durable PostgreSQL%n",
        tasks, batch, rounds);
      try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null))) {
        List<String> agents = register(c, batch);
        long pid = pid(c);
        for (int round = 1; round <= rounds; round++) {
          if (ladder) {
            climb(c, pid, agents, tasks, round);
          }
          createTasks(c, "p" + round, tasks);
          PgFunctionTimes.reset(db, statements);
          long cpu0 = ProcCpu.processNanos(pid, false);
          long t0 = System.nanoTime();
          long done = BenchMain.requireCompleted("claim+complete tasks in round " + round, claimComplete(c, agents, tasks));
          double wall = (System.nanoTime() - t0) / 1e3;
          double cpu = (ProcCpu.processNanos(pid, false) - cpu0) / 1e3;
          System.out.printf(Locale.ROOT, "round %d: claim+complete in batches of %d: %d tasks, backend CPU %.1f µs/task, wall %.1f µs/task%n",
            round, batch, done, cpu / done, wall / done);
          if (round == rounds) {
            PgFunctionTimes.print(db, done, 12);
            if (statements) {
              PgFunctionTimes.printStatements(db, done, 30);
            }
          }
          createTasks(c, "r" + round, tasks);
          cpu0 = ProcCpu.processNanos(pid, false);
          t0 = System.nanoTime();
          long claims = BenchMain.requireCompleted("raw claims in round " + round, rawClaims(c, tasks));
          wall = (System.nanoTime() - t0) / 1e3;
          cpu = (ProcCpu.processNanos(pid, false) - cpu0) / 1e3;
          System.out.printf(Locale.ROOT, "round %d: raw single-statement claim: %d claims, backend CPU %.1f µs/claim, wall %.1f µs/claim%n",
            round, claims, cpu / claims, wall / claims);
        }
      }
    } finally {
      pg.close();
      TestDatabase.deleteTree(dir);
    }
  }

  /** Each of {@link SqlLadder}'s rungs on fresh tasks, in batches of the agents' number. */
  private static void climb(Connection c, long pid, List<String> agents, int tasks, int round) throws SQLException {
    for (int i = 0; i < SqlLadder.RUNGS.size(); i++) {
      SqlLadder.Rung rung = SqlLadder.RUNGS.get(i);
      createTasks(c, "l" + round + "-" + i, tasks);
      long cpu0 = ProcCpu.processNanos(pid, false);
      long t0 = System.nanoTime();
      SqlLadder.Climbed climbed = SqlLadder.run(c, rung, agents, tasks);
      long done = climbed.tasks();
      double wall = (System.nanoTime() - t0) / 1e3;
      double cpu = (ProcCpu.processNanos(pid, false) - cpu0) / 1e3;
      System.out.printf(Locale.ROOT, "round %d: rung %-28s %d tasks, backend CPU %.1f µs/task, wall %.1f µs/task "
          + "(claims %.1f, completes %.1f)%n", round, rung.name(), done, cpu / done, wall / done,
        climbed.claimNanos() / 1e3 / done, climbed.completeNanos() / 1e3 / done);
    }
  }

  private static List<String> register(Connection c, int count) throws SQLException {
    List<String> ids = new ArrayList<>();
    try (PreparedStatement st = c.prepareStatement("SELECT swarm.execute(?::jsonb)")) {
      for (int i = 0; i < count; i++) {
        String id = "sql-agent-" + i;
        st.setString(1, new JsonObject().put("protocolVersion", "1.0").put("operation", "REGISTER")
          .put("agent", new JsonObject().put("id", id).put("name", "sql " + i).put("type", "custom")
            .put("capabilities", new JsonObject().put("skills", new JsonArray()))).encode());
        st.executeQuery().close();
        ids.add(id);
      }
    }
    return ids;
  }

  /** The same tasks SwarmBench creates. */
  private static void createTasks(Connection c, String prefix, int tasks) throws SQLException {
    try (PreparedStatement st = c.prepareStatement("SELECT swarm.create_tasks(?::jsonb)")) {
      for (int from = 0; from < tasks; from += 1000) {
        st.setString(1, SwarmBench.tasks(prefix, from, Math.min(tasks, from + 1000)).encode());
        st.executeQuery().close();
      }
    }
    c.createStatement().execute("VACUUM ANALYZE swarm.tasks");
  }

  private static long claimComplete(Connection c, List<String> agents, int tasks) throws SQLException {
    String sql = ProtocolStore.DISPATCH.replace("$1", "?").replace("$2", "?");
    long done = 0;
    try (PreparedStatement st = c.prepareStatement(sql)) {
      while (done < tasks) {
        JsonArray claims = new JsonArray();
        for (String agent : agents) {
          claims.add(item(new JsonObject().put("protocolVersion", "1.0").put("operation", "CLAIM").put("agentId", agent)));
        }
        String[] claimed = run(st, claims);
        JsonArray completes = new JsonArray();
        for (int i = 0; i < agents.size(); i++) {
          JsonObject response = claimed[i] == null ? null : new JsonObject(claimed[i]);
          if (response == null || !response.getBoolean("success", false)) {
            continue;
          }
          completes.add(item(new JsonObject().put("protocolVersion", "1.0").put("operation", "COMPLETE")
            .put("agentId", agents.get(i)).put("taskId", response.getJsonObject("task").getString("id"))
            .put("result", new JsonObject().put("filesCreated", new JsonArray()).put("filesModified", new JsonArray())
              .put("filesDeleted", new JsonArray()).put("summary", "done"))));
        }
        if (completes.isEmpty()) {
          break;
        }
        String[] completed = run(st, completes);
        for (String r : completed) {
          if (r == null || !new JsonObject(r).getBoolean("success", false)) {
            throw new IllegalStateException("COMPLETE failed: " + r);
          }
        }
        done += completed.length;
      }
    }
    return done;
  }

  private static JsonObject item(JsonObject request) {
    return new JsonObject().put("request", request).putNull("principal").put("options", new JsonObject().put("admin", true));
  }

  private static String[] run(PreparedStatement st, JsonArray items) throws SQLException {
    st.setString(1, items.encode());
    st.setObject(2, OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS));
    try (ResultSet rs = st.executeQuery()) {
      rs.next();
      Array oks = rs.getArray(1);
      return (String[]) oks.getArray();
    }
  }

  private static long rawClaims(Connection c, int limit) throws SQLException {
    long claims = 0;
    try (PreparedStatement st = c.prepareStatement(RawClaims.CLAIM)) {
      st.setString(1, "raw-0");
      while (claims < limit) {
        try (ResultSet rs = st.executeQuery()) {
          if (!rs.next()) {
            break;
          }
          claims++;
        }
      }
    }
    return claims;
  }

  private static long pid(Connection c) throws SQLException {
    try (ResultSet rs = c.createStatement().executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
