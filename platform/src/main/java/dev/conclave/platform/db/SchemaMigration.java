package dev.conclave.platform.db;

/**
 * One service's schema and where its Flyway scripts live ({@code classpath:db/<schema>}).
 * Each module owns exactly one schema and declares it here.
 */
public record SchemaMigration(String schema) {

  public SchemaMigration {
    if (!schema.matches("[a-z][a-z0-9_]*")) {
      throw new IllegalArgumentException("schema names are lower-case identifiers: " + schema);
    }
  }

  public String location() {
    return "classpath:db/" + schema;
  }
}
