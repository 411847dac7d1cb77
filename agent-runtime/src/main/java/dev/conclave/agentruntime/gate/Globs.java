package dev.conclave.agentruntime.gate;

/** Tool-name globs: {@code *} matches any run of characters, {@code ?} one; nothing else is special. */
final class Globs {

  private Globs() {
  }

  static boolean matches(String glob, String name) {
    return matches(glob, 0, name, 0);
  }

  private static boolean matches(String g, int gi, String s, int si) {
    while (gi < g.length()) {
      char c = g.charAt(gi);
      if (c == '*') {
        for (int k = si; k <= s.length(); k++) {
          if (matches(g, gi + 1, s, k)) {
            return true;
          }
        }
        return false;
      }
      if (si >= s.length() || (c != '?' && c != s.charAt(si))) {
        return false;
      }
      gi++;
      si++;
    }
    return si == s.length();
  }
}
