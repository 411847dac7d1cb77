package dev.conclave.cli.output;

/** {@code -o}: how a listing is printed. */
public enum Format {
  /** Aligned columns for people (the default). */
  table,
  /** The API's JSON document, its field names unchanged, for scripts. */
  json,
  /** The same document as YAML. */
  yaml
}
