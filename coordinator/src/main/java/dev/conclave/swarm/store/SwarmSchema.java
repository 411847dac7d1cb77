package dev.conclave.swarm.store;

import dev.conclave.platform.db.SchemaMigration;

import java.util.Set;

/**
 * The coordinator's schema: tables in versioned migrations, every function (the protocol itself) in
 * repeatable ones: one file per protocol operation holding its checks and its effect
 * ({@code db/swarm/R__swarm_op_<operation>.sql}), what they share in {@code R__swarm_support.sql}, and
 * one file per other concern (the entry point and batches, jobs, the operator's actions, learnings).
 */
public final class SwarmSchema {

  /**
   * The repeatable files of the layout by concern, whose functions moved to the files by operation
   * (and to support, jobs, learnings, tasks). A database migrated before records them as applied.
   */
  static final String[] RETIRED = {"R__swarm_agents.sql", "R__swarm_claims.sql", "R__swarm_leases.sql", "R__swarm_messages.sql",
    "R__swarm_work_reports.sql"};

  /**
   * V2–V9 and V11 held the functions that now live in the R__ files and were removed; V10 held the
   * task-history trigger too and now only creates its table. Databases migrated before keep working.
   */
  public static final SchemaMigration MIGRATION = new SchemaMigration("swarm", Set.of(2, 3, 4, 5, 6, 7, 8, 9, 10, 11),
    Set.of(RETIRED));

  private SwarmSchema() {
  }
}
