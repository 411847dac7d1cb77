package dev.conclave.platform.db;

import dev.conclave.platform.config.PgUrl;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.api.output.ValidateOutput;
import org.flywaydb.core.api.output.ValidateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Brings each schema up to date with Flyway. Every schema has its own history table, so services
 * migrate independently; Flyway's advisory lock makes concurrent nodes safe. A schema whose history
 * already records exactly this build's scripts is not handed to Flyway at all (see
 * {@link #needingFlyway}). Blocking: call it from {@code main} or a test, never from an event loop.
 */
public final class Migrations {

  private static final Logger LOG = LoggerFactory.getLogger(Migrations.class);
  /** Flyway operations run (each scans the scripts and reads the history), for the tests that count them. */
  static final java.util.concurrent.atomic.AtomicInteger FLYWAY_OPERATIONS = new java.util.concurrent.atomic.AtomicInteger();
  /** Histories read over JDBC, for the test that a node's start reads its own over the pool. */
  static final java.util.concurrent.atomic.AtomicInteger JDBC_HISTORY_READS = new java.util.concurrent.atomic.AtomicInteger();

  private Migrations() {
  }

  public static void apply(PgUrl url, List<SchemaMigration> schemas) {
    apply(url, needingFlyway(url, scripts(schemas)));
  }

  /** Runs Flyway on the schemas {@code pending} names, in their order; nothing when it names none. */
  public static void apply(PgUrl url, Pending pending) {
    for (SchemaMigration schema : pending.schemas()) {
      migrate(url, schema, pending.withoutHistory().contains(schema));
    }
  }

  private static void migrate(PgUrl url, SchemaMigration schema, boolean withoutHistory) {
    long t0 = System.nanoTime();
    if (!withoutHistory) {
      // a schema with no history yet has nothing to realign (the check is a whole Flyway validation)
      realignRewritten(url, schema);
    }
    FLYWAY_OPERATIONS.incrementAndGet();
    MigrateResult result = flyway(url, schema).migrate();
    LOG.info("migrations: schema={} applied={} version={} took={}ms", schema.schema(), result.migrationsExecuted,
      result.targetSchemaVersion == null ? currentVersion(url, schema) : result.targetSchemaVersion, (System.nanoTime() - t0) / 1_000_000);
  }

  /**
   * This build's scripts of each of {@code schemas}, read from the class path with their checksums.
   * It needs no database, so a node reads them while its PostgreSQL starts.
   */
  public static BuildScripts scripts(List<SchemaMigration> schemas) {
    Map<String, Optional<MigrationScripts>> bySchema = new LinkedHashMap<>();
    for (SchemaMigration schema : schemas) {
      bySchema.put(schema.schema(), MigrationScripts.of(schema, Migrations.class.getClassLoader()));
    }
    return new BuildScripts(schemas, bySchema);
  }

  /**
   * The schemas whose history does not already record exactly this build's scripts, read over the
   * node's {@code pool} in one transaction: a node's start asks this without JDBC, whose
   * driver and second password exchange cost a warm start about a fifth of its time (issue 45).
   * Never fails: a history it cannot read counts as needing Flyway, as over JDBC.
   */
  public static Future<Pending> pending(Pool pool, BuildScripts scripts) {
    long t0 = System.nanoTime();
    Pending pending = new Pending(new ArrayList<>(), new ArrayList<>());
    return pool.withTransaction(tx -> {
      Future<Void> chain = Future.succeededFuture();
      for (SchemaMigration schema : scripts.schemas) {
        Optional<MigrationScripts> own = scripts.bySchema.get(schema.schema());
        chain = chain.compose(done -> own.isEmpty() ? Future.<AppliedMigrations.Verdict>succeededFuture(null) : AppliedMigrations.check(tx, own.get(), schema.retired()))
          .map(verdict -> {
            decide(schema, own, verdict, pending);
            return null;
          });
      }
      return chain;
    }).map(done -> {
      LOG.debug("migrations: history read took={}ms", (System.nanoTime() - t0) / 1_000_000);
      return pending;
    }).recover(e -> {
      LOG.info("migrations: could not read the migration history ({}); Flyway checks every schema", e.getMessage());
      return Future.succeededFuture(new Pending(scripts.schemas, List.of()));
    });
  }

  /**
   * The schemas whose history does not already record exactly this build's scripts
   * ({@link AppliedMigrations}), in their order; the others are logged as up to date and left alone.
   * Any doubt (a layout Flyway's scanner would read differently, a failed query) counts as needing
   * Flyway: the shortcut only ever skips a run that would have changed nothing.
   */
  static List<SchemaMigration> needingFlyway(PgUrl url, List<SchemaMigration> schemas) {
    return needingFlyway(url, scripts(schemas)).schemas();
  }

  /** As {@link #pending}, over JDBC: for the commands and tests that have no pool. */
  static Pending needingFlyway(PgUrl url, BuildScripts scripts) {
    long t0 = System.nanoTime();
    Pending pending = new Pending(new ArrayList<>(), new ArrayList<>());
    try (Connection connection = DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null))) {
      JDBC_HISTORY_READS.incrementAndGet();
      for (SchemaMigration schema : scripts.schemas) {
        Optional<MigrationScripts> own = scripts.bySchema.get(schema.schema());
        decide(schema, own, own.isEmpty() ? null : AppliedMigrations.check(connection, own.get(), schema.retired()), pending);
      }
    } catch (SQLException e) {
      LOG.info("migrations: could not read the migration history ({}); Flyway checks every schema", e.getMessage());
      return new Pending(scripts.schemas, List.of());
    }
    LOG.debug("migrations: history read took={}ms", (System.nanoTime() - t0) / 1_000_000);
    return pending;
  }

  /** Logs one schema's verdict and adds it to {@code pending} unless it is up to date; no verdict: scripts Flyway must read itself. */
  private static void decide(SchemaMigration schema, Optional<MigrationScripts> scripts, AppliedMigrations.Verdict verdict, Pending pending) {
    if (scripts.isEmpty()) {
      LOG.info("migrations: schema={} scripts not in a plain layout; Flyway checks them", schema.schema());
      pending.schemas().add(schema);
    } else if (verdict.upToDate()) {
      LOG.info("migrations: schema={} up to date version={} ({} scripts, as applied)", schema.schema(), verdict.version(),
        scripts.get().scripts().size());
    } else {
      LOG.info("migrations: schema={} {}; Flyway validates and migrates", schema.schema(), verdict.difference());
      pending.schemas().add(schema);
      if (verdict.noHistory()) {
        pending.withoutHistory().add(schema);
      }
    }
  }

  /** This build's migration scripts for a node's schemas ({@link #scripts}). */
  public static final class BuildScripts {
    private final List<SchemaMigration> schemas;
    private final Map<String, Optional<MigrationScripts>> bySchema;

    private BuildScripts(List<SchemaMigration> schemas, Map<String, Optional<MigrationScripts>> bySchema) {
      this.schemas = List.copyOf(schemas);
      this.bySchema = bySchema;
    }
  }

  /** The schemas Flyway must run on, in order, and those of them with no history table yet. */
  public record Pending(List<SchemaMigration> schemas, List<SchemaMigration> withoutHistory) {

    /** Whether every schema is already up to date. */
    public boolean none() {
      return schemas.isEmpty();
    }
  }

  /**
   * A database migrated before the schema's versioned files {@code rewritten} were
   * rewritten (their functions moved to repeatable migrations) records those versions with the old
   * checksums, or versions whose files are gone. When those are the only differences, the history is
   * repaired (checksums realigned, removed files marked deleted); the repeatable migrations then
   * recreate every function. Any other difference is left for migrate to refuse.
   */
  static void realignRewritten(PgUrl url, SchemaMigration schema) {
    if (schema.rewritten().isEmpty()) {
      return;
    }
    Flyway flyway = flyway(url, schema);
    FLYWAY_OPERATIONS.incrementAndGet();
    ValidateResult result = flyway.validateWithResult();
    if (result.validationSuccessful || result.invalidMigrations == null) {
      return;
    }
    boolean applied = false;
    for (ValidateOutput invalid : result.invalidMigrations) {
      Integer version = wholeVersion(invalid.version);
      if (version == null) {
        continue; // a repeatable migration not applied yet: migrate applies it
      }
      if (!schema.rewritten().contains(version)) {
        return; // not ours to repair: migrate refuses with Flyway's own message
      }
      applied = true;
    }
    if (applied) {
      FLYWAY_OPERATIONS.incrementAndGet();
      flyway.repair();
      LOG.info("migrations: schema={} history realigned with its rewritten migrations {}", schema.schema(),
        new java.util.TreeSet<>(schema.rewritten()));
    }
  }

  private static Integer wholeVersion(String version) {
    if (version == null || !version.matches("\\d{1,9}")) {
      return null;
    }
    return Integer.valueOf(version);
  }

  static String currentVersion(PgUrl url, SchemaMigration schema) {
    FLYWAY_OPERATIONS.incrementAndGet();
    var current = flyway(url, schema).info().current();
    return current == null ? "none" : current.getVersion().getVersion();
  }

  private static Flyway flyway(PgUrl url, SchemaMigration schema) {
    var configuration = Flyway.configure()
      .dataSource(url.jdbcUrl(), url.user(), url.password().orElse(null))
      .schemas(schema.schema())
      .defaultSchema(schema.schema())
      .createSchemas(true)
      .locations(schema.location())
      .failOnMissingLocations(true)
      .loggers("slf4j");
    if (!schema.retired().isEmpty()) {
      // A database migrated before the schema's repeatable files were reorganised records the retired
      // ones as applied: Flyway would refuse them as "not resolved locally". Its patterns cannot name a
      // file, so for such a schema Flyway lets any applied repeatable be missing (undoing nothing: a
      // missing repeatable's functions are those its successors recreate). Whether Flyway runs at all is
      // decided by AppliedMigrations, which excuses only the scripts named as retired.
      configuration.ignoreMigrationPatterns("*:future", "repeatable:missing");
    }
    return configuration.load();
  }
}
