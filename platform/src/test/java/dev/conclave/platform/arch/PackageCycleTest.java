package dev.conclave.platform.arch;

import dev.conclave.platform.arch.SourceTree.Source;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No module has a package cycle (STYLE.md: "a package cycle usually means that records live in the
 * wrong package"). The graph of each module's packages is built from its {@code import dev.conclave…}
 * lines; same-package references need no import and do not count. Each cycle is a strongly connected
 * component of more than one package.
 *
 * <p>{@link #KNOWN} is empty: no module may have a cycle. Were one ever allowed for a while, it would be
 * listed there exactly, with the issue that removes it: a new cycle, or a known one that grows, fails; a
 * known cycle that is gone fails too, so that its entry is deleted and it cannot come back unnoticed.
 */
class PackageCycleTest {

  /**
   * module → the cycles (sorted package sets) it may still have: none. An entry here is a debt with
   * its reason and the issue that removes it.
   */
  private static final Map<String, Set<Set<String>>> KNOWN = Map.of();

  private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

  @Test
  void noModuleHasAPackageCycleBeyondTheKnownOnes() {
    Map<String, Set<Set<String>>> found = new TreeMap<>();
    for (String module : SourceTree.modules()) {
      Set<Set<String>> cycles = cycles(SourceTree.mainSources(module));
      if (!cycles.isEmpty()) {
        found.put(module, cycles);
      }
    }
    for (String module : new TreeSet<>(found.keySet())) {
      Set<Set<String>> known = KNOWN.getOrDefault(module, Set.of());
      for (Set<String> cycle : found.get(module)) {
        assertThat(known).as("%s has a package cycle that is not in the allow-list: %s", module, new TreeSet<>(cycle)).contains(cycle);
      }
    }
    KNOWN.forEach((module, cycles) -> {
      for (Set<String> cycle : cycles) {
        assertThat(found.getOrDefault(module, Set.of()))
          .as("%s no longer has the cycle %s: delete it from PackageCycleTest.KNOWN", module, new TreeSet<>(cycle))
          .contains(cycle);
      }
    });
  }

  @Test
  void theCycleFinderFindsACycle() {
    Map<String, Set<String>> graph = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a", "d"), "d", Set.of());
    assertThat(stronglyConnected(graph)).containsExactly(Set.of("a", "b", "c"));
  }

  /** The module's package cycles. */
  static Set<Set<String>> cycles(List<Source> sources) {
    Map<String, Set<String>> graph = new HashMap<>();
    for (Source s : sources) {
      Matcher m = PACKAGE.matcher(s.text());
      if (!m.find()) {
        continue;
      }
      String pkg = m.group(1);
      Set<String> out = graph.computeIfAbsent(pkg, k -> new HashSet<>());
      for (String imported : s.imports()) {
        if (imported.startsWith("dev.conclave.")) {
          String target = packageOf(imported);
          if (!target.equals(pkg)) {
            out.add(target);
          }
        }
      }
    }
    graph.values().forEach(targets -> targets.retainAll(graph.keySet()));
    return stronglyConnected(graph);
  }

  /** {@code a.b.C.d} and {@code a.b.*} → {@code a.b}: the segments before the first type name. */
  static String packageOf(String imported) {
    List<String> parts = new ArrayList<>();
    for (String part : imported.split("\\.")) {
      if (part.equals("*") || Character.isUpperCase(part.charAt(0))) {
        break;
      }
      parts.add(part);
    }
    return String.join(".", parts);
  }

  /** Tarjan's algorithm; components of one node are left out. */
  static Set<Set<String>> stronglyConnected(Map<String, Set<String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new HashSet<>();
    Set<Set<String>> result = new HashSet<>();
    int[] counter = {0};
    for (String v : new TreeSet<>(graph.keySet())) {
      if (!index.containsKey(v)) {
        connect(v, graph, index, low, stack, onStack, result, counter);
      }
    }
    return result;
  }

  private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index, Map<String, Integer> low,
                              Deque<String> stack, Set<String> onStack, Set<Set<String>> result, int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]);
    counter[0]++;
    stack.push(v);
    onStack.add(v);
    for (String w : graph.getOrDefault(v, Set.of())) {
      if (!index.containsKey(w)) {
        connect(w, graph, index, low, stack, onStack, result, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new HashSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      if (component.size() > 1) {
        result.add(Set.copyOf(component));
      }
    }
  }
}
