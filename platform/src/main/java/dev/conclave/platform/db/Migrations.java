package dev.conclave.platform.db;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Brings each schema up to date with Flyway. Every schema has its own history table, so services
 * migrate independently; Flyway's advisory lock makes concurrent nodes safe. Blocking: call it from
 * {@code main} or a test, never from an event loop.
 */
public final class Migrations {

  private static final Logger LOG = LoggerFactory.getLogger(Migrations.class);

  private Migrations() {
  }

  public static void apply(PgUrl url, List<SchemaMigration> schemas) {
    for (SchemaMigration schema : schemas) {
      MigrateResult result = flyway(url, schema).migrate();
      LOG.info("migrations: schema={} applied={} version={}", schema.schema(), result.migrationsExecuted,
        result.targetSchemaVersion == null ? currentVersion(url, schema) : result.targetSchemaVersion);
    }
  }

  static String currentVersion(PgUrl url, SchemaMigration schema) {
    var current = flyway(url, schema).info().current();
    return current == null ? "none" : current.getVersion().getVersion();
  }

  private static Flyway flyway(PgUrl url, SchemaMigration schema) {
    return Flyway.configure()
      .dataSource(url.jdbcUrl(), url.user(), url.password().orElse(null))
      .schemas(schema.schema())
      .defaultSchema(schema.schema())
      .createSchemas(true)
      .locations(schema.location())
      .failOnMissingLocations(true)
      .loggers("slf4j")
      .load();
  }
}
