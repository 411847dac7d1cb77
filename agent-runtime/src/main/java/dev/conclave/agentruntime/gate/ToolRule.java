package dev.conclave.agentruntime.gate;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One rule of a policy file. It matches a tool call when every condition it has holds:
 * {@code tool}, a glob on the tool name ({@code *} any run of characters, {@code ?} one);
 * {@code args}, a regular expression found anywhere in the call's input JSON text; and
 * {@code outside_workdir: true}, some string in the input that looks like a path and resolves
 * outside the agent's working directory.
 */
public record ToolRule(String toolGlob, Optional<Pattern> args, boolean outsideWorkdir, String description) {

  /** Parses one rule object; the error names the field. */
  public static ToolRule parse(JsonObject rule, String where) {
    Object tool = rule.getValue("tool", "*");
    if (!(tool instanceof String glob) || glob.isBlank()) {
      throw new IllegalArgumentException(where + ".tool must be a non-empty string");
    }
    Optional<Pattern> args = Optional.empty();
    Object a = rule.getValue("args");
    if (a != null) {
      if (!(a instanceof String regex)) {
        throw new IllegalArgumentException(where + ".args must be a string (a regular expression)");
      }
      try {
        args = Optional.of(Pattern.compile(regex));
      } catch (PatternSyntaxException e) {
        throw new IllegalArgumentException(where + ".args is not a valid regular expression: " + e.getDescription());
      }
    }
    Object outside = rule.getValue("outside_workdir", false);
    if (!(outside instanceof Boolean o)) {
      throw new IllegalArgumentException(where + ".outside_workdir must be true or false");
    }
    for (String key : rule.fieldNames()) {
      if (!key.equals("tool") && !key.equals("args") && !key.equals("outside_workdir") && !key.equals("why")) {
        throw new IllegalArgumentException(where + " has an unknown field '" + key + "' (tool, args, outside_workdir, why)");
      }
    }
    String why = rule.getString("why", describe(glob, args, o));
    return new ToolRule(glob, args, o, why);
  }

  private static String describe(String glob, Optional<Pattern> args, boolean outside) {
    StringBuilder b = new StringBuilder("tool ").append(glob);
    args.ifPresent(p -> b.append(" with arguments matching /").append(p.pattern()).append('/'));
    if (outside) {
      b.append(" on a path outside the working directory");
    }
    return b.toString();
  }

  /** Whether the rule matches a call of {@code tool} with {@code inputJson}, the agent working in {@code workdir}. */
  public boolean matches(String tool, String inputJson, Path workdir) {
    if (!Globs.matches(toolGlob, tool)) {
      return false;
    }
    if (args.isPresent() && !args.get().matcher(inputJson == null ? "" : inputJson).find()) {
      return false;
    }
    return !outsideWorkdir || PathsInInput.anyOutside(inputJson, workdir);
  }

  /** Parses a JSON array of rules. */
  static java.util.List<ToolRule> parseAll(JsonArray rules, String where) {
    java.util.List<ToolRule> out = new java.util.ArrayList<>();
    for (int i = 0; i < rules.size(); i++) {
      Object r = rules.getValue(i);
      if (!(r instanceof JsonObject o)) {
        throw new IllegalArgumentException(where + "[" + i + "] must be an object");
      }
      out.add(parse(o, where + "[" + i + "]"));
    }
    return java.util.List.copyOf(out);
  }
}
