package dev.conclave.agentruntime.gate;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * A tool policy: the rules every tool call passes before it runs. Loaded from a JSON file whose
 * format agent-runtime/README.md documents; {@code default-policy.json} in this module is the
 * policy used when none is given.
 *
 * <p>Order of evaluation: a {@code deny} rule that matches denies; in {@link GateMode#PLAN} only
 * {@code read_only} tools run; then the first matching {@code allow} rule allows and the first
 * matching {@code ask} rule asks; a {@code read_only} tool runs; anything else follows the mode.
 */
public record ToolPolicy(GateMode mode, List<String> readOnly, List<ToolRule> deny, List<ToolRule> allow,
                         List<ToolRule> ask) {

  private static final Set<String> KEYS = Set.of("mode", "read_only", "deny", "allow", "ask", "comment");

  public ToolPolicy {
    readOnly = List.copyOf(readOnly);
    deny = List.copyOf(deny);
    allow = List.copyOf(allow);
    ask = List.copyOf(ask);
  }

  /** The built-in default policy: ask before anything that writes or executes. */
  public static ToolPolicy defaults() {
    try (InputStream in = ToolPolicy.class.getResourceAsStream("default-policy.json")) {
      if (in == null) {
        throw new IllegalStateException("default-policy.json is missing from the agent runtime");
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "default-policy.json");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Loads a policy file; the error names the file and the field. */
  public static ToolPolicy load(Path file) {
    try {
      return parse(Files.readString(file), file.toString());
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read policy file " + file + ": " + e.getMessage());
    }
  }

  /** Parses a policy's JSON text; {@code where} names it in errors. */
  public static ToolPolicy parse(String json, String where) {
    JsonObject o;
    try {
      o = new JsonObject(json);
    } catch (DecodeException e) {
      throw new IllegalArgumentException("policy " + where + " is not a JSON object: " + e.getMessage());
    }
    for (String key : o.fieldNames()) {
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException("policy " + where + " has an unknown field '" + key + "' (allowed: " + KEYS + ")");
      }
    }
    GateMode mode = GateMode.parse(o.getString("mode", "ask"));
    List<String> readOnly = o.getJsonArray("read_only", new JsonArray()).stream().map(v -> {
      if (!(v instanceof String s) || s.isBlank()) {
        throw new IllegalArgumentException("policy " + where + ": read_only holds tool-name globs (strings)");
      }
      return s;
    }).toList();
    return new ToolPolicy(mode, readOnly,
      ToolRule.parseAll(array(o, "deny", where), where + ": deny"),
      ToolRule.parseAll(array(o, "allow", where), where + ": allow"),
      ToolRule.parseAll(array(o, "ask", where), where + ": ask"));
  }

  private static JsonArray array(JsonObject o, String key, String where) {
    Object v = o.getValue(key);
    if (v == null) {
      return new JsonArray();
    }
    if (!(v instanceof JsonArray a)) {
      throw new IllegalArgumentException("policy " + where + ": " + key + " must be an array of rules");
    }
    return a;
  }

  /** The same policy in another mode (the {@code --mode} flag overrides the file's). */
  public ToolPolicy withMode(GateMode mode) {
    return new ToolPolicy(mode, readOnly, deny, allow, ask);
  }

  /** Whether the tool only reads. */
  public boolean isReadOnly(String tool) {
    return readOnly.stream().anyMatch(g -> Globs.matches(g, tool));
  }

  /** The policy's verdict on a call of {@code tool} with {@code inputJson} by an agent working in {@code workdir}. */
  public Verdict evaluate(String tool, String inputJson, Path workdir) {
    for (ToolRule r : deny) {
      if (r.matches(tool, inputJson, workdir)) {
        return Verdict.deny("denied by policy: " + r.description());
      }
    }
    if (mode == GateMode.PLAN) {
      return isReadOnly(tool)
        ? Verdict.allow("read-only tool in plan mode")
        : Verdict.deny("plan mode: only read-only tools run until the plan is approved");
    }
    for (ToolRule r : allow) {
      if (r.matches(tool, inputJson, workdir)) {
        return Verdict.allow("allowed by policy: " + r.description());
      }
    }
    for (ToolRule r : ask) {
      if (r.matches(tool, inputJson, workdir)) {
        return Verdict.ask("policy asks: " + r.description());
      }
    }
    if (isReadOnly(tool)) {
      return Verdict.allow("read-only tool");
    }
    return mode == GateMode.AUTO ? Verdict.allow("auto mode") : Verdict.ask("ask mode: " + tool + " may write or execute");
  }
}
