package dev.conclave.platform.packs.schema;

import com.networknt.schema.AbsoluteIri;
import com.networknt.schema.InvalidSchemaRefException;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.dialect.Dialects;
import dev.conclave.platform.errors.Failures;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.PatternSyntaxException;

/**
 * Tool schemas compiled with the validator the MCP SDK uses (networknt json-schema-validator, which
 * the SDK brings), but set up by us rather than through the SDK's {@code DefaultJsonSchemaValidator}:
 * that one logs every failure at ERROR, answers with the exception's text (Java class names), caches
 * compiled schemas without bound and by {@code $id} (so two packs' schemas with one {@code $id} would
 * share a compilation), and checks the meta-schema only for 2020-12. Here each schema is compiled in
 * its own registry, whose loader reads nothing but the built-in meta-schemas (no file, no URL, ever),
 * every reference is resolved at compile time, and compilations are kept by their exact text, the
 * most recently used {@value #CACHED}.
 */
final class CompiledSchemas {

  static final int CACHED = 128;

  /** The meta-schemas' own home: everything else is refused by the loader (and nothing is fetched). */
  private static final String META_HOME = "json-schema.org/";
  private static final JsonMapper JSON = JsonMapper.shared();

  private static final Map<String, Schema> CACHE = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Schema> eldest) {
      return size() > CACHED;
    }
  });
  private static final SchemaRegistry META = registry();
  private static final Map<SpecificationVersion, Schema> META_SCHEMAS = Collections.synchronizedMap(new EnumMap<>(SpecificationVersion.class));

  private CompiledSchemas() {
  }

  /** A schema compiled, or why it cannot be. */
  record Compiled(Schema schema, String problem) {
  }

  /** The compiled schema of {@code text} (JSON), from the cache or compiled now. */
  static Compiled compile(String text) {
    Schema cached = CACHE.get(text);
    if (cached != null) {
      return new Compiled(cached, null);
    }
    try {
      Schema schema = registry().getSchema(JSON.readTree(text));
      // resolves every reference and builds every validator now, not on the first call
      schema.initializeValidators();
      CACHE.put(text, schema);
      return new Compiled(schema, null);
    } catch (RuntimeException e) {
      return new Compiled(null, describe(e));
    }
  }

  /** Why {@code node} does not conform to the meta-schema of its dialect; empty when it does. */
  static Optional<String> metaProblem(JsonNode node, SpecificationVersion dialect) {
    try {
      Schema meta = META_SCHEMAS.computeIfAbsent(dialect, d -> META.getSchema(SchemaLocation.of(d.getDialectId())));
      var errors = meta.validate(node);
      return errors.isEmpty() ? Optional.empty() : Optional.of("does not conform to JSON Schema " + dialect.getDialectId() + ": "
        + Failures.safeDetail(errors.toString()));
    } catch (RuntimeException e) {
      return Optional.of("cannot be checked against JSON Schema " + dialect.getDialectId() + ": " + describe(e));
    }
  }

  private static SchemaRegistry registry() {
    return SchemaRegistry.withDefaultDialect(Dialects.getDraft202012(), b -> b.schemaLoader(l -> l.fetchRemoteResources(false)
      .block(CompiledSchemas::foreign)));
  }

  private static boolean foreign(AbsoluteIri iri) {
    String s = iri.toString();
    return !(s.startsWith("https://" + META_HOME) || s.startsWith("http://" + META_HOME));
  }

  /** What went wrong compiling, for the pack's author: one line, no Java class. */
  private static String describe(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof PatternSyntaxException p) {
        return "has an invalid regular expression: " + p.getDescription() + (p.getIndex() >= 0 ? " near index " + p.getIndex() : "");
      }
    }
    String message = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
    if (e instanceof InvalidSchemaRefException) {
      return "has a $ref that resolves to nothing in the schema (" + Failures.safeDetail(message) + ")";
    }
    if (message.contains("is not allowed to be loaded")) {
      return "has a $ref outside the schema (" + Failures.safeDetail(message) + "): only references inside the schema ('#/…') are allowed";
    }
    return "cannot be compiled: " + Failures.safeDetail(message);
  }
}
