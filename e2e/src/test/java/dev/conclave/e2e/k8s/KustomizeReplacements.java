package dev.conclave.e2e.k8s;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Kustomize's {@code replacements}, the subset {@code k8s/} uses: a source of kind, name and field
 * path; targets selected by kind (and name), with field paths whose elements are map keys, list
 * indices ({@code 0}) or list selectors ({@code [name=value]}), and the options {@code delimiter} and
 * {@code index} (replace one part of a value split at the delimiter). Like {@code kustomize build},
 * they run after every other transformer, and a path that finds no field fails the rendering.
 */
final class KustomizeReplacements {

  private KustomizeReplacements() {
  }

  static void apply(List<Map<String, Object>> docs, List<Object> replacements, Path dir) {
    for (Object r : replacements) {
      Map<String, Object> replacement = Kustomize.castMap(r);
      known(replacement.keySet(), Set.of("source", "targets"), dir, "replacement");
      Map<String, Object> source = Kustomize.castMap(replacement.get("source"));
      known(source.keySet(), Set.of("kind", "name", "fieldPath"), dir, "replacement source");
      Object value = read(one(docs, source, dir), (String) source.get("fieldPath"), dir);
      for (Object t : Kustomize.list(replacement, "targets")) {
        Map<String, Object> target = Kustomize.castMap(t);
        known(target.keySet(), Set.of("select", "fieldPaths", "options"), dir, "replacement target");
        Map<String, Object> select = Kustomize.castMap(target.get("select"));
        known(select.keySet(), Set.of("kind", "name"), dir, "replacement select");
        Map<String, Object> options = target.containsKey("options") ? Kustomize.castMap(target.get("options")) : Map.of();
        known(options.keySet(), Set.of("delimiter", "index"), dir, "replacement options");
        List<Map<String, Object>> selected = docs.stream().filter(d -> matches(d, select)).toList();
        if (selected.isEmpty()) {
          throw new IllegalStateException(dir + ": replacement target " + select + " selects nothing");
        }
        for (Map<String, Object> doc : selected) {
          for (Object path : Kustomize.list(target, "fieldPaths")) {
            write(doc, (String) path, value, options, dir);
          }
        }
      }
    }
  }

  private static Map<String, Object> one(List<Map<String, Object>> docs, Map<String, Object> select, Path dir) {
    List<Map<String, Object>> found = docs.stream().filter(d -> matches(d, select)).toList();
    if (found.size() != 1) {
      throw new IllegalStateException(dir + ": replacement source " + select + " matches " + found.size() + " resources");
    }
    return found.get(0);
  }

  private static boolean matches(Map<String, Object> doc, Map<String, Object> select) {
    return Objects.equals(doc.get("kind"), select.get("kind"))
      && (select.get("name") == null || Objects.equals(Kustomize.name(doc), select.get("name")));
  }

  private static Object read(Object doc, String path, Path dir) {
    Object at = doc;
    for (String element : path.split("\\.")) {
      at = step(at, element, path, dir);
    }
    return at;
  }

  private static void write(Map<String, Object> doc, String path, Object value, Map<String, Object> options, Path dir) {
    List<String> elements = Arrays.asList(path.split("\\."));
    Object parent = doc;
    for (String element : elements.subList(0, elements.size() - 1)) {
      parent = step(parent, element, path, dir);
    }
    String last = elements.get(elements.size() - 1);
    Object old = step(parent, last, path, dir);
    Object replaced = value;
    if (options.containsKey("delimiter")) {
      String delimiter = (String) options.get("delimiter");
      List<String> parts = new ArrayList<>(Arrays.asList(((String) old).split(java.util.regex.Pattern.quote(delimiter), -1)));
      int index = ((Number) options.getOrDefault("index", 0)).intValue();
      if (index >= parts.size()) {
        throw new IllegalStateException(dir + ": " + path + " = '" + old + "' has no part " + index);
      }
      parts.set(index, String.valueOf(value));
      replaced = String.join(delimiter, parts);
    }
    if (parent instanceof List<?> list) {
      @SuppressWarnings("unchecked")
      List<Object> l = (List<Object>) list;
      l.set(Integer.parseInt(last), replaced);
    } else {
      Kustomize.castMap(parent).put(last, replaced);
    }
  }

  private static Object step(Object at, String element, String path, Path dir) {
    Object next = null;
    if (at instanceof List<?> list) {
      if (element.startsWith("[") && element.endsWith("]")) {
        String[] kv = element.substring(1, element.length() - 1).split("=", 2);
        next = list.stream().filter(i -> i instanceof Map<?, ?> m && kv[1].equals(String.valueOf(m.get(kv[0])))).findFirst().orElse(null);
      } else if (element.matches("\\d+") && Integer.parseInt(element) < list.size()) {
        next = list.get(Integer.parseInt(element));
      }
    } else if (at instanceof Map<?, ?> map) {
      next = map.get(element);
    }
    if (next == null) {
      throw new IllegalStateException(dir + ": replacement field path " + path + " finds nothing at '" + element + "'");
    }
    return next;
  }

  private static void known(Set<String> keys, Set<String> allowed, Path dir, String what) {
    for (String key : keys) {
      if (!allowed.contains(key)) {
        throw new IllegalStateException(dir + ": " + what + " '" + key + "' is not rendered by this test");
      }
    }
  }
}
