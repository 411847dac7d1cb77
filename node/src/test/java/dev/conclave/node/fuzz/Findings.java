package dev.conclave.node.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one try found wrong. By default a finding fails the try (and jqwik shrinks the input); with
 * {@code -Dconclave.fuzz.survey=true} every try runs, findings are grouped by signature (surface,
 * route, kind of failure) with the shortest input seen for each, and the property fails at its end
 * with the whole list: one run names every distinct failure instead of the first.
 */
final class Findings {

  static final boolean SURVEY = Boolean.getBoolean("conclave.fuzz.survey");

  record Finding(String signature, String detail) {
  }

  private record Seen(String detail, String input, int count, java.util.Set<String> where) {
  }

  private static final Map<String, Map<String, Seen>> SURVEYED = new TreeMap<>();

  private final String surface;
  private final Object input;
  /** Where the input was aimed (a route, a method, an operation): findings are grouped across them. */
  private final String where;
  private final List<Finding> found = new ArrayList<>();

  Findings(String surface, String where, Object input) {
    this.surface = surface;
    this.where = where;
    this.input = input;
  }

  void add(String signature, String detail) {
    found.add(new Finding(surface + " | " + signature, detail));
  }

  /** What the node logged that it must not have: any stack trace, any ERROR. */
  void logs(List<LogWatch.Entry> entries) {
    for (LogWatch.Entry e : entries) {
      add("log: " + e.signature(), e.toString());
    }
  }

  /** A Java class name or stack frame in what the node answered ({@code part}: which part of the answer). */
  void leaks(String part, String text) {
    String name = Leaks.javaName(text);
    if (name != null) {
      add("a Java name in the answer's " + part + " (" + name.replaceAll("[0-9]+", "N") + ")", "'" + name + "' in: " + abbreviate(text, 600));
    }
  }

  boolean isEmpty() {
    return found.isEmpty();
  }

  /** Ends the try: fails it, or (surveying) records what it found. */
  void close() {
    if (found.isEmpty()) {
      return;
    }
    if (!SURVEY) {
      StringBuilder out = new StringBuilder("the node mishandled a malformed input (" + where + ")\n  input: " + input);
      found.forEach(f -> out.append("\n  - ").append(f.signature()).append("\n      ").append(f.detail().replace("\n", "\n      ")));
      throw new AssertionError(out.toString());
    }
    String text = String.valueOf(input);
    synchronized (SURVEYED) {
      Map<String, Seen> mine = SURVEYED.computeIfAbsent(surface, s -> new TreeMap<>());
      for (Finding f : found) {
        Seen before = mine.get(f.signature());
        java.util.Set<String> places = before == null ? new java.util.TreeSet<>() : before.where();
        places.add(where);
        if (before == null) {
          mine.put(f.signature(), new Seen(f.detail(), text, 1, places));
        } else if (text.length() < before.input().length()) {
          mine.put(f.signature(), new Seen(f.detail(), text, before.count() + 1, places));
        } else {
          mine.put(f.signature(), new Seen(before.detail(), before.input(), before.count() + 1, places));
        }
      }
    }
  }

  /** Records findings outside any try (late log lines, the checks after a property). */
  static void outside(String surface, List<Finding> findings) {
    if (findings.isEmpty()) {
      return;
    }
    Findings f = new Findings(surface, "-", "(none: found between or after the tries)");
    findings.forEach(x -> f.found.add(x));
    f.close();
  }

  /** Surveying: prints what the property's tries found, and fails if anything. */
  static void endOfProperty(String surface) {
    if (!SURVEY) {
      return;
    }
    Map<String, Seen> mine;
    synchronized (SURVEYED) {
      mine = SURVEYED.remove(surface);
    }
    if (mine == null || mine.isEmpty()) {
      System.out.println("fuzz survey " + surface + ": nothing found");
      return;
    }
    StringBuilder out = new StringBuilder("fuzz survey " + surface + ": " + mine.size() + " distinct findings\n");
    mine.forEach((signature, seen) -> out.append("\n* ").append(signature).append("  (").append(seen.count()).append(" tries)")
      .append("\n    on: ").append(abbreviate(String.join(", ", seen.where()), 1500))
      .append("\n    shortest input: ").append(seen.input())
      .append("\n    ").append(seen.detail().replace("\n", "\n    ")).append('\n'));
    System.out.println(out);
    throw new AssertionError(out.toString());
  }

  static String abbreviate(String text, int max) {
    if (text == null) {
      return "null";
    }
    return text.length() <= max ? text : text.substring(0, max) + "…(" + text.length() + " chars)";
  }
}
