package dev.conclave.platform.packs.schema;

import com.networknt.schema.SpecificationVersion;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The JSON Schema dialects a tool's schema may declare with {@code $schema}: the ones the validator
 * has built in (drafts 4, 6 and 7, 2019-09 and 2020-12), so that no meta-schema is ever fetched.
 * Without {@code $schema} a schema is 2020-12, as MCP says.
 */
final class SchemaDialects {

  static final SpecificationVersion DEFAULT = SpecificationVersion.DRAFT_2020_12;
  static final List<String> KNOWN = Arrays.stream(SpecificationVersion.values()).map(SpecificationVersion::getDialectId).toList();

  private SchemaDialects() {
  }

  /** The dialect {@code id} names (with or without the empty fragment '#'), if it is one of ours. */
  static Optional<SpecificationVersion> of(String id) {
    String bare = id.endsWith("#") ? id.substring(0, id.length() - 1) : id;
    return Arrays.stream(SpecificationVersion.values())
      .filter(v -> v.getDialectId().equals(bare) || v.getDialectId().equals(bare + "#"))
      .findFirst();
  }
}
