package dev.conclave.agentruntime.swarm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a COMPLETE reports from the backend's final answer: the summary (the answer without its
 * learnings section, cut to the protocol's 20,000 characters) and the learnings, the lines after a
 * line {@code Learnings:} that start with {@code - } or {@code * } (the prompt asks for them so; at
 * most 50, each cut to 4,000 characters).
 */
final class Answers {

  static final int SUMMARY_MAX = 20_000;
  static final int LEARNINGS_MAX = 50;
  static final int LEARNING_MAX = 4_000;

  private Answers() {
  }

  static String summary(String answer) {
    String text = answer == null ? "" : answer;
    int heading = headingLine(text.lines().toList());
    if (heading >= 0) {
      text = String.join("\n", text.lines().toList().subList(0, heading));
    }
    text = text.strip();
    if (text.isEmpty()) {
      text = "(the backend gave no summary)";
    }
    return text.length() <= SUMMARY_MAX ? text : text.substring(0, SUMMARY_MAX - 1) + "…";
  }

  static List<String> learnings(String answer) {
    List<String> lines = (answer == null ? "" : answer).lines().toList();
    int heading = headingLine(lines);
    List<String> out = new ArrayList<>();
    if (heading < 0) {
      return out;
    }
    for (String line : lines.subList(heading + 1, lines.size())) {
      String s = line.strip();
      if (s.isEmpty()) {
        continue;
      }
      if (!s.startsWith("- ") && !s.startsWith("* ")) {
        break;
      }
      String learning = s.substring(2).strip();
      if (!learning.isEmpty() && out.size() < LEARNINGS_MAX) {
        out.add(learning.length() <= LEARNING_MAX ? learning : learning.substring(0, LEARNING_MAX - 1) + "…");
      }
    }
    return out;
  }

  /** The last line that reads "Learnings:" (Markdown emphasis and heading marks aside), or -1. */
  private static int headingLine(List<String> lines) {
    for (int i = lines.size() - 1; i >= 0; i--) {
      String s = lines.get(i).strip().replaceAll("^[#*_\\s]+|[*_\\s]+$", "").toLowerCase(Locale.ROOT);
      if (s.equals("learnings:") || s.equals("learnings")) {
        return i;
      }
    }
    return -1;
  }
}
