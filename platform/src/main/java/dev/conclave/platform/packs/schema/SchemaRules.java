package dev.conclave.platform.packs.schema;

import dev.conclave.platform.validation.TextRules;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.PatternSyntaxException;

/**
 * The rules a tool's input schema must keep beyond being JSON Schema, so that what registers works
 * on every call and never makes the node read anything: every reference is local ({@code $ref},
 * {@code $dynamicRef} and {@code $recursiveRef} start with {@code #}), every regular expression
 * ({@code pattern}, the keys of {@code patternProperties}) compiles, and {@code $schema}, where given,
 * names a dialect the node has built in. The schema is walked keyword by keyword, so that a value in
 * {@code default}, {@code const}, {@code enum} or {@code examples} (data, not schema) is never judged.
 * Each problem is told with the JSON pointer of where it is.
 */
final class SchemaRules {

  /** Keywords whose value is one subschema. */
  private static final Set<String> ONE = Set.of("additionalProperties", "additionalItems", "items", "contains", "not", "if", "then", "else",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema");
  /** Keywords whose value is an object of subschemas. */
  private static final Set<String> MANY_BY_NAME = Set.of("properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
    "dependencies");
  /** Keywords whose value is an array of subschemas. */
  private static final Set<String> MANY_IN_ORDER = Set.of("allOf", "anyOf", "oneOf", "prefixItems", "items");
  private static final List<String> REFERENCES = List.of("$ref", "$dynamicRef", "$recursiveRef");

  private SchemaRules() {
  }

  /** The first rule {@code schema} breaks, said for the pack's author; empty when it keeps them all. */
  static Optional<String> problem(Map<String, Object> schema) {
    return problem(schema, "");
  }

  private static Optional<String> problem(Object node, String at) {
    if (!(node instanceof Map<?, ?> schema)) {
      return Optional.empty(); // true, false, or something the meta-schema refuses
    }
    for (String keyword : REFERENCES) {
      if (schema.get(keyword) instanceof String ref && !ref.startsWith("#")) {
        return Optional.of("has a " + keyword + " to '" + TextRules.echo(ref) + "' at " + where(at)
          + ": only references inside the schema ('#/…') are allowed");
      }
    }
    if (schema.get("$schema") instanceof String dialect && SchemaDialects.of(dialect).isEmpty()) {
      return Optional.of("declares $schema '" + TextRules.echo(dialect) + "' at " + where(at) + ", which is not a dialect this node knows ("
        + String.join(", ", SchemaDialects.KNOWN) + ")");
    }
    if (schema.get("pattern") instanceof String pattern) {
      Optional<String> bad = regexProblem(pattern);
      if (bad.isPresent()) {
        return Optional.of("has an invalid pattern at " + where(at + "/pattern") + ": " + bad.get());
      }
    }
    if (schema.get("patternProperties") instanceof Map<?, ?> patterns) {
      for (Object key : patterns.keySet()) {
        Optional<String> bad = regexProblem(String.valueOf(key));
        if (bad.isPresent()) {
          return Optional.of("has an invalid regular expression '" + TextRules.echo(String.valueOf(key)) + "' in patternProperties at "
            + where(at) + ": " + bad.get());
        }
      }
    }
    for (Map.Entry<?, ?> e : schema.entrySet()) {
      String keyword = String.valueOf(e.getKey());
      String here = at + "/" + pointerToken(keyword);
      Optional<String> found = Optional.empty();
      if (ONE.contains(keyword) && e.getValue() instanceof Map<?, ?>) {
        found = problem(e.getValue(), here);
      } else if (MANY_BY_NAME.contains(keyword) && e.getValue() instanceof Map<?, ?> named) {
        for (Map.Entry<?, ?> sub : named.entrySet()) {
          found = found.or(() -> problem(sub.getValue(), here + "/" + pointerToken(String.valueOf(sub.getKey()))));
        }
      } else if (MANY_IN_ORDER.contains(keyword) && e.getValue() instanceof List<?> list) {
        for (int i = 0; i < list.size() && found.isEmpty(); i++) {
          found = problem(list.get(i), here + "/" + i);
        }
      }
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  /** Why {@code regex} does not compile the way the validator compiles it (java.util.regex), in one line. */
  private static Optional<String> regexProblem(String regex) {
    try {
      java.util.regex.Pattern.compile(regex);
      return Optional.empty();
    } catch (PatternSyntaxException e) {
      return Optional.of(e.getDescription() + (e.getIndex() >= 0 ? " near index " + e.getIndex() : ""));
    } catch (RuntimeException e) {
      return Optional.of("it cannot be compiled");
    }
  }

  private static String where(String pointer) {
    return pointer.isEmpty() ? "the top" : pointer;
  }

  /** RFC 6901: '~' and '/' in a name are escaped; hidden characters are shown. */
  private static String pointerToken(String name) {
    return TextRules.echo(name.replace("~", "~0").replace("/", "~1"));
  }
}
