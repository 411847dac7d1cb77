package dev.conclave.platform.db;

/**
 * One service's schema and where its Flyway scripts live ({@code classpath:db/<schema>}).
 * Each module owns exactly one schema and declares it here.
 *
 * @param rewritten the versioned migrations whose files were rewritten or removed when the schema's
 *   functions moved into repeatable migrations ({@code R__…}). A database migrated
 *   before that change has those versions recorded with other checksums; their history is brought in
 *   line ({@link Migrations}) instead of refusing to start. Any other difference still stops start-up.
 */
public record SchemaMigration(String schema, java.util.Set<Integer> rewritten) {

  public SchemaMigration {
    if (!schema.matches("[a-z][a-z0-9_]*")) {
      throw new IllegalArgumentException("schema names are lower-case identifiers: " + schema);
    }
    rewritten = java.util.Set.copyOf(rewritten);
  }

  public SchemaMigration(String schema) {
    this(schema, java.util.Set.of());
  }

  public String location() {
    return "classpath:db/" + schema;
  }
}
