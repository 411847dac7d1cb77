package dev.conclave.packs.registry;

import dev.conclave.packs.PackErrors;
import dev.conclave.platform.packs.ToolScope;
import dev.conclave.platform.packs.schema.Schemas;
import dev.conclave.platform.validation.TextRules;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.ToolDefinition;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks a pack's manifest before anything is registered. Every failure is INVALID_ARGUMENT and
 * names the field.
 */
public final class Manifests {

  /** Pack ids: letters, digits and {@code . _ - :}, starting with a letter or digit. */
  static final Pattern PACK_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");
  /** Tool names as MCP allows them. */
  static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  static final Pattern CAPABILITY = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
  static final int MAX_TOOLS = 256;
  static final int MAX_VERSION = 64;
  static final int MAX_DESCRIPTION = 4096;
  static final int MAX_SCHEMA = 64 * 1024;
  /** The prefix of built-in pack ids; packs may not use it. */
  public static final String BUILTIN_PREFIX = "builtin:";

  private Manifests() {
  }

  /** Throws INVALID_ARGUMENT naming the first bad field. */
  public static void validate(PackManifest m) {
    if (m.getPackId().isEmpty()) {
      throw PackErrors.invalidManifest("pack_id", "is required");
    }
    if (!PACK_ID.matcher(m.getPackId()).matches()) {
      throw PackErrors.invalidManifest("pack_id", "must be 1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit");
    }
    if (reserved(m.getPackId())) {
      throw PackErrors.invalidManifest("pack_id", "'" + m.getPackId() + "' is reserved: 'builtin' and ids starting with '" + BUILTIN_PREFIX
        + "' (in any case) name the built-in packs");
    }
    TextRules.nameProblem(m.getVersion(), MAX_VERSION).ifPresent(why -> {
      throw PackErrors.invalidManifest("version", why);
    });
    if (m.getToolsCount() == 0) {
      throw PackErrors.invalidManifest("tools", "must list at least one tool");
    }
    if (m.getToolsCount() > MAX_TOOLS) {
      throw PackErrors.invalidManifest("tools", "must list at most " + MAX_TOOLS + " tools, got " + m.getToolsCount());
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < m.getToolsCount(); i++) {
      ToolDefinition tool = m.getTools(i);
      validate(tool, "tools[" + i + "]");
      if (!names.add(tool.getName())) {
        throw PackErrors.invalidManifest("tools[" + i + "].name", "'" + tool.getName() + "' is listed twice");
      }
    }
  }

  private static void validate(ToolDefinition t, String at) {
    if (t.getName().isEmpty()) {
      throw PackErrors.invalidManifest(at + ".name", "is required");
    }
    if (!TOOL_NAME.matcher(t.getName()).matches()) {
      throw PackErrors.invalidManifest(at + ".name", "must be 1 to 64 letters, digits, '_', '.' or '-', got '" + t.getName() + "'");
    }
    if (t.getDescription().length() > MAX_DESCRIPTION) {
      throw PackErrors.invalidManifest(at + ".description", "must be at most " + MAX_DESCRIPTION + " characters");
    }
    if (t.getTimeoutSeconds() < 0 || t.getTimeoutSeconds() > ToolScope.MAX_TIMEOUT_SECONDS) {
      throw PackErrors.invalidManifest(at + ".timeout_seconds", "must be 0 (meaning 30) to " + ToolScope.MAX_TIMEOUT_SECONDS
        + ", got " + t.getTimeoutSeconds());
    }
    for (String capability : t.getRequiredCapabilitiesList()) {
      if (!CAPABILITY.matcher(capability).matches()) {
        throw PackErrors.invalidManifest(at + ".required_capabilities", "contains '" + capability
          + "'; capabilities are 1 to 64 letters, digits, '_', '.', ':' or '-'");
      }
    }
    String schema = t.getInputSchemaJson();
    if (schema.isBlank()) {
      throw PackErrors.invalidManifest(at + ".input_schema_json", "is required: a JSON Schema for an object, such as " + Schemas.ANY_OBJECT);
    }
    if (schema.length() > MAX_SCHEMA) {
      throw PackErrors.invalidManifest(at + ".input_schema_json", "must be at most " + MAX_SCHEMA + " bytes");
    }
    Optional<String> problem = Schemas.checkToolSchema(schema);
    if (problem.isPresent()) {
      throw PackErrors.invalidManifest(at + ".input_schema_json (tool '" + t.getName() + "')", problem.get());
    }
  }

  /** Pack ids that name built-in packs, or could be read as one: {@code builtin}, {@code builtin:…}, in any case. */
  static boolean reserved(String packId) {
    String id = packId.toLowerCase(java.util.Locale.ROOT);
    return id.equals(BUILTIN_PREFIX.substring(0, BUILTIN_PREFIX.length() - 1)) || id.startsWith(BUILTIN_PREFIX);
  }
}
