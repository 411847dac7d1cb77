package dev.conclave.platform.retention;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * The retention worker on a real database, with the token rule: what is older than the window goes, in
 * batches, archived first when an archive is set; live tokens stay; a worker whose lock another node
 * holds deletes nothing; an archive that cannot be written stops the delete. Time is compressed by
 * rows inserted with old timestamps, not by a fake clock.
 */
class RetentionWorkerTest {

  /** The bound of each wait here (the shared one is shorter). */
  private static final java.time.Duration STEP = java.time.Duration.ofSeconds(60);

  private static final Duration WINDOW = Duration.ofDays(30);

  private PgUrl db;
  private Vertx vertx;
  private Pool pool;
  private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();

  @BeforeEach
  void setUp() {
    db = TestDatabase.freshDatabase();
    Migrations.apply(db, List.of(new SchemaMigration("auth")));
    vertx = Vertx.vertx();
    pool = PgPools.create(vertx, db, 4, 16);
    TestDatabase.execute(db, "INSERT INTO auth.principals (id, type, display_name, status) "
      + "VALUES ('00000000-0000-0000-0000-0000000000a1', 'agent', 'a', 'approved')");
    // 35 expired 40 days ago: to delete
    insertTokens(35, "now() - interval '50 days'", "now() - interval '40 days'", "NULL");
    // live: expires in a day
    insertTokens(3, "now() - interval '50 days'", "now() + interval '1 day'", "NULL");
    // revoked long ago but not expired yet: its revocation must not be forgotten
    insertTokens(2, "now() - interval '50 days'", "now() + interval '1 day'", "now() - interval '40 days'");
    // expired inside the window
    insertTokens(2, "now() - interval '50 days'", "now() - interval '10 days'", "NULL");
  }

  @AfterEach
  void tearDown() throws Exception {
    await(vertx.close(), STEP);
  }

  @Test
  void deletesExactlyTheTokensPastTheWindowInBatches() throws Exception {
    Set<String> doomed = ids("expires_at < now() - interval '30 days'");
    RetentionWorker.Run run = await(worker(10, Optional.empty()).runOnce(), STEP);
    assertThat(run.skipped()).isFalse();
    assertThat(run.deleted("tokens")).isEqualTo(35);
    assertThat(run.batches("tokens")).as("35 rows in batches of 10").isEqualTo(4);
    assertThat(ids("true")).as("what is left").hasSize(7).doesNotContainAnyElementsOf(doomed);
    assertThat(metrics.counter(MetricNames.RETENTION_ROWS_DELETED, "kind", "tokens").count()).isEqualTo(35.0);
    assertThat(metrics.counter(MetricNames.RETENTION_BATCHES, "kind", "tokens").count()).isEqualTo(4.0);
  }

  @Test
  void theArchiveHoldsEveryDeletedRow(@TempDir Path dir) throws Exception {
    Set<String> doomed = ids("expires_at < now() - interval '30 days'");
    Path archive = dir.resolve("archive");
    await(worker(10, Optional.of(archive)).runOnce(), STEP);
    List<JsonObject> lines = new ArrayList<>();
    RetentionArchive.read(archive, "tokens", l -> lines.add(new JsonObject(l)));
    Set<String> archived = new HashSet<>();
    lines.forEach(l -> archived.add(l.getString("id")));
    assertThat(lines).hasSize(35);
    assertThat(archived).isEqualTo(doomed);
    assertThat(lines.get(0).getString("principal_id")).isEqualTo("00000000-0000-0000-0000-0000000000a1");
    try (var files = Files.list(archive)) {
      assertThat(files.map(p -> p.getFileName().toString()).toList()).singleElement().asString().matches("tokens-\\d{4}-\\d{2}-\\d{2}\\.ndjson\\.gz");
    }
  }

  @Test
  void anArchiveThatCannotBeWrittenDeletesNothing(@TempDir Path dir) throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("file"), "x");
    RetentionWorker.Run run = await(worker(10, Optional.of(notADirectory.resolve("archive"))).runOnce(), STEP);
    assertThat(run.deleted("tokens")).isZero();
    assertThat(ids("true")).hasSize(42);
    assertThat(metrics.counter(MetricNames.RETENTION_ARCHIVE_FAILURES, "kind", "tokens").count()).isEqualTo(1.0);
  }

  @Test
  void aWorkerWhoseLockAnotherNodeHoldsDeletesNothing() throws Exception {
    try (Connection other = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         Statement s = other.createStatement()) {
      s.execute("SELECT pg_advisory_lock(hashtext('conclave.retention.auth'))");
      RetentionWorker.Run run = await(worker(10, Optional.empty()).runOnce(), STEP);
      assertThat(run.skipped()).isTrue();
      assertThat(ids("true")).hasSize(42);
      assertThat(metrics.counter(MetricNames.RETENTION_RUNS_SKIPPED, "worker", "auth").count()).isEqualTo(1.0);
      s.execute("SELECT pg_advisory_unlock(hashtext('conclave.retention.auth'))");
    }
    // two workers at once (two nodes): together they delete each row once, and at most one runs at a time
    RetentionWorker a = worker(5, Optional.empty());
    RetentionWorker b = worker(5, Optional.empty());
    List<RetentionWorker.Run> runs = await(Future.all(a.runOnce(), b.runOnce()), STEP).list();
    assertThat(runs.stream().mapToLong(r -> r.deleted("tokens")).sum()).isEqualTo(35);
    assertThat(ids("true")).hasSize(7);
  }

  private RetentionWorker worker(int batch, Optional<Path> archive) {
    return new RetentionWorker(vertx, pool, "auth", List.of(TokenRetention.rule(WINDOW)),
      new RetentionSettings(batch, Duration.ofHours(1), archive), metrics);
  }

  private void insertTokens(int n, String issued, String expires, String revoked) {
    TestDatabase.execute(db, "INSERT INTO auth.tokens (id, principal_id, issued_at, expires_at, revoked_at) "
      + "SELECT gen_random_uuid(), '00000000-0000-0000-0000-0000000000a1', " + issued + ", " + expires + ", " + revoked
      + " FROM generate_series(1, " + n + ")");
  }

  private Set<String> ids(String where) throws Exception {
    Set<String> out = new HashSet<>();
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password().orElse(null));
         Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM auth.tokens WHERE " + where)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
