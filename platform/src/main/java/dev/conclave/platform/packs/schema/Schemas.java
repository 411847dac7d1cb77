package dev.conclave.platform.packs.schema;

import com.networknt.schema.SpecificationVersion;
import dev.conclave.platform.errors.Failures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * JSON Schema checks for tool definitions and tool inputs (JSON Schema 2020-12 unless the schema
 * declares another built-in dialect, as MCP uses them). A manifest's {@code input_schema_json} is
 * checked whole when its pack registers: a schema for a JSON object, valid against its meta-schema,
 * keeping {@link SchemaRules} (local references, valid regular expressions, a known dialect), and
 * compiled ({@link CompiledSchemas}), so that a call never meets a schema that cannot be used. A
 * call's input must match its tool's schema. No answer names a Java class.
 */
public final class Schemas {

  /** What a tool without a schema takes: any JSON object. */
  public static final String ANY_OBJECT = "{\"type\":\"object\"}";

  private static final Logger LOG = LoggerFactory.getLogger(Schemas.class);
  private static final JsonMapper JSON = JsonMapper.shared();

  private Schemas() {
  }

  /** Empty when {@code schemaJson} is a usable object schema; otherwise why not. */
  public static Optional<String> checkToolSchema(String schemaJson) {
    Map<String, Object> schema;
    try {
      schema = parseObject(schemaJson);
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    Object type = schema.get("type");
    if (type != null && !"object".equals(type)) {
      return Optional.of("must describe a JSON object (\"type\": \"object\"), got type " + JSON.writeValueAsString(type));
    }
    Optional<String> broken = SchemaRules.problem(schema);
    if (broken.isPresent()) {
      return broken;
    }
    JsonNode node = JSON.valueToTree(schema);
    SpecificationVersion dialect = schema.get("$schema") instanceof String id
      ? SchemaDialects.of(id).orElse(SchemaDialects.DEFAULT) : SchemaDialects.DEFAULT;
    Optional<String> notSchema = CompiledSchemas.metaProblem(node, dialect);
    if (notSchema.isPresent()) {
      return Optional.of("is not a valid JSON Schema: " + notSchema.get());
    }
    return Optional.ofNullable(CompiledSchemas.compile(schemaJson).problem());
  }

  /** Empty when {@code input} (a parsed JSON object) matches the schema; otherwise why not. */
  public static Optional<String> checkInput(String schemaJson, Map<String, Object> input) {
    try {
      CompiledSchemas.Compiled compiled = CompiledSchemas.compile(schemaJson);
      if (compiled.schema() == null) {
        // registration refuses such a schema; only an entry written by an older node can have one
        LOG.warn("a tool's input schema cannot be used problem={}", compiled.problem());
        return Optional.of("the tool's input schema cannot be used: it " + compiled.problem());
      }
      List<com.networknt.schema.Error> errors = compiled.schema().validate(JSON.valueToTree(input));
      if (errors.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(Failures.safeDetail(String.join(", ", errors.stream().map(com.networknt.schema.Error::toString).toList())));
    } catch (RuntimeException e) {
      LOG.warn("a tool input could not be checked against its schema error={}", Failures.safeDetail(String.valueOf(e.getMessage())));
      return Optional.of("the input could not be checked against the tool's schema");
    }
  }

  /** Parses JSON text that must be an object (blank counts as {@code {}}). */
  public static Map<String, Object> parseObject(String json) {
    if (json == null || json.isBlank()) {
      return new java.util.LinkedHashMap<>();
    }
    Object value;
    try {
      value = JSON.readValue(json, Object.class);
    } catch (JacksonException e) {
      throw new IllegalArgumentException("is not valid JSON: " + Failures.safeDetail(e.getOriginalMessage()));
    }
    if (!(value instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("must be a JSON object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> object = (Map<String, Object>) map;
    return object;
  }
}
