package dev.conclave.node.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * Log lines that arrived between tries (after the try that caused them had been judged): kept and
 * reported when the property ends, so they are never lost, and never blamed on the wrong input.
 */
final class Strays {

  private final List<Findings.Finding> found = new ArrayList<>();

  /** Takes what the node logged since the last look, before a try starts. */
  void collect(LogWatch logs) {
    for (LogWatch.Entry e : logs.drain()) {
      found.add(new Findings.Finding("log (between tries): " + e.signature(), e.toString()));
    }
  }

  /** At the end of a property: stray log lines, then the node's health; fails on any. */
  void endOfProperty(String surface, FuzzNode f) {
    collect(f.logs);
    List<Findings.Finding> all = new ArrayList<>(found);
    found.clear();
    for (Findings.Finding h : f.health()) {
      all.add(new Findings.Finding("after the tries: " + h.signature(), h.detail()));
    }
    collect(f.logs);
    all.addAll(found);
    found.clear();
    try {
      Findings.outside(surface, all);
    } finally {
      Findings.endOfProperty(surface);
    }
  }
}
