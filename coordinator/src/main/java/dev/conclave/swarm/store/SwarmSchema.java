package dev.conclave.swarm.store;

import dev.conclave.platform.db.SchemaMigration;

import java.util.Set;

/**
 * The coordinator's schema: tables in versioned migrations, every function (the protocol itself) in
 * repeatable ones, one file per concern ({@code db/swarm/R__swarm_*.sql}).
 */
public final class SwarmSchema {

  /**
   * V2–V9 and V11 held the functions that now live in the R__ files and were removed; V10 held the
   * task-history trigger too and now only creates its table. Databases migrated before keep working.
   */
  public static final SchemaMigration MIGRATION = new SchemaMigration("swarm", Set.of(2, 3, 4, 5, 6, 7, 8, 9, 10, 11));

  private SwarmSchema() {
  }
}
