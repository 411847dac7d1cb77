package dev.conclave.packs.registry;

import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson3.DefaultJsonSchemaValidator;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.util.Map;
import java.util.Optional;

/**
 * JSON Schema checks for tool definitions and tool inputs, with the MCP SDK's validator (JSON
 * Schema 2020-12, as MCP uses): a manifest's {@code input_schema_json} must be a schema for a JSON
 * object, and a call's input must match its tool's schema.
 */
public final class Schemas {

  /** What a tool without a schema takes: any JSON object. */
  public static final String ANY_OBJECT = "{\"type\":\"object\"}";

  private static final JsonMapper JSON = JsonMapper.shared();
  private static final JsonSchemaValidator VALIDATOR = new DefaultJsonSchemaValidator(JSON);

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
    JsonSchemaValidator.ValidationResponse verdict = VALIDATOR.validateSchema(schema);
    if (!verdict.valid()) {
      return Optional.of("is not a valid JSON Schema: " + verdict.errorMessage());
    }
    return Optional.empty();
  }

  /** Empty when {@code input} (a parsed JSON object) matches the schema; otherwise why not. */
  public static Optional<String> checkInput(String schemaJson, Map<String, Object> input) {
    JsonSchemaValidator.ValidationResponse verdict = VALIDATOR.validate(parseObject(schemaJson), input);
    if (verdict.valid()) {
      return Optional.empty();
    }
    String message = verdict.errorMessage();
    // the SDK prefixes every verdict; the agent only needs the violations
    int bracket = message.indexOf('[');
    return Optional.of(bracket >= 0 && message.endsWith("]") ? message.substring(bracket + 1, message.length() - 1) : message);
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
      throw new IllegalArgumentException("is not valid JSON: " + e.getOriginalMessage());
    }
    if (!(value instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException("must be a JSON object");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> object = (Map<String, Object>) map;
    return object;
  }
}
