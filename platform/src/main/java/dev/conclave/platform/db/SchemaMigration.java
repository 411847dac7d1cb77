package dev.conclave.platform.db;

/**
 * One service's schema and where its Flyway scripts live ({@code classpath:db/<schema>}).
 * Each module owns exactly one schema and declares it here.
 *
 * @param rewritten the versioned migrations whose files were rewritten or removed when the schema's
 *   functions moved into repeatable migrations ({@code R__…}). A database migrated
 *   before that change has those versions recorded with other checksums; their history is brought in
 *   line ({@link Migrations}) instead of refusing to start. Any other difference still stops start-up.
 * @param retired the repeatable migrations ({@code R__….sql}, by file name) this build no longer has,
 *   their functions having moved to other repeatable files. A database migrated before records them as
 *   applied; they are not "missing" to Flyway (nothing needs undoing: the files that replaced them
 *   recreate every function) and not a difference to {@link AppliedMigrations}. Another repeatable
 *   that is gone is still a difference.
 */
public record SchemaMigration(String schema, java.util.Set<Integer> rewritten, java.util.Set<String> retired) {

  public SchemaMigration {
    if (!schema.matches("[a-z][a-z0-9_]*")) {
      throw new IllegalArgumentException("schema names are lower-case identifiers: " + schema);
    }
    rewritten = java.util.Set.copyOf(rewritten);
    retired = java.util.Set.copyOf(retired);
    for (String script : retired) {
      if (!script.matches("R__.+\\.sql")) {
        throw new IllegalArgumentException("only repeatable migrations (R__….sql) are retired: " + script);
      }
    }
  }

  public SchemaMigration(String schema, java.util.Set<Integer> rewritten) {
    this(schema, rewritten, java.util.Set.of());
  }

  public SchemaMigration(String schema) {
    this(schema, java.util.Set.of());
  }

  public String location() {
    return "classpath:db/" + schema;
  }
}
