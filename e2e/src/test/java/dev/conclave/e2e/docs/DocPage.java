package dev.conclave.e2e.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Markdown page as the docs test reads it: its fenced blocks in order, the shell examples among
 * them, and what breaks the page's conventions (README.md, "Examples in these docs").
 *
 * <p>A shell example is a block tagged {@code sh}. Its first line may be a visible marker:
 * {@code # not run in CI: <reason>}. A comment saying {@code runs until Ctrl-C} makes it a block that
 * keeps running. A {@code text} block that follows it, with no heading between, is the output it shows.
 */
record DocPage(String name, List<DocPage.Fence> fences, List<Example> examples, List<Example> walkthrough, List<String> problems) {

  /**
   * A fenced block: where it starts (1-based line of the opening fence), its tag, its lines, and whether
   * it is inside a walkthrough ({@code <!-- walkthrough:begin -->} to {@code <!-- walkthrough:end -->}):
   * steps a test of the page's own runs as one script (DocsIT names which).
   */
  record Fence(int line, String tag, List<String> lines, boolean headingBefore, boolean inWalkthrough) {
  }

  /** A shell example and, when one follows it, the output it shows. */
  record Example(String page, int line, List<String> lines, Optional<String> notRunReason, boolean runsUntilCtrlC,
                 Optional<Fence> shownOutput) {

    String where() {
      return page + ":" + line;
    }

    /** The block's lines without comments and blank lines: what a reader would type. */
    List<String> commands() {
      return lines.stream().map(l -> l.replaceFirst("(^|\\s+)#.*$", "").strip()).filter(l -> !l.isEmpty()).toList();
    }
  }

  static final String SHELL = "sh";
  private static final Set<String> OTHER_SHELL_TAGS = Set.of("bash", "shell", "console", "zsh", "shell-session");
  private static final Pattern OPEN = Pattern.compile("^( *)(`{3,}|~{3,})\\s*([^`\\s]*).*$");
  private static final Pattern NOT_RUN = Pattern.compile("^#\\s*not run in CI:\\s*(\\S.*)$");
  private static final Pattern UNTIL_CTRL_C = Pattern.compile("#.*\\bruns until Ctrl-C\\b");
  static final String WALKTHROUGH_BEGIN = "<!-- walkthrough:begin -->";
  static final String WALKTHROUGH_END = "<!-- walkthrough:end -->";

  static DocPage read(Path root, Path file) {
    try {
      return parse(root.relativize(file).toString(), Files.readAllLines(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static DocPage parse(String name, List<String> text) {
    List<Fence> fences = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    boolean heading = false;
    boolean walkthrough = false;
    for (int i = 0; i < text.size(); i++) {
      Matcher open = OPEN.matcher(text.get(i));
      if (!open.matches()) {
        walkthrough = text.get(i).strip().equals(WALKTHROUGH_BEGIN) || walkthrough && !text.get(i).strip().equals(WALKTHROUGH_END);
        heading |= text.get(i).matches("^ {0,3}#{1,6}(\\s.*)?$");
        continue;
      }
      int indent = open.group(1).length();
      String fence = open.group(2);
      Pattern close = Pattern.compile("^ *" + Pattern.quote(fence.substring(0, 1)) + "{" + fence.length() + ",}\\s*$");
      List<String> lines = new ArrayList<>();
      int start = i;
      for (i++; i < text.size() && !close.matcher(text.get(i)).matches(); i++) {
        String line = text.get(i);
        int strip = 0;
        while (strip < indent && strip < line.length() && line.charAt(strip) == ' ') {
          strip++;
        }
        lines.add(line.substring(strip));
      }
      fences.add(new Fence(start + 1, open.group(3), List.copyOf(lines), heading, walkthrough));
      heading = false;
    }
    List<Example> examples = new ArrayList<>();
    List<Example> walked = new ArrayList<>();
    for (int f = 0; f < fences.size(); f++) {
      Fence fence = fences.get(f);
      String where = name + ":" + fence.line();
      if (fence.tag().isEmpty()) {
        problems.add(where + ": a fenced block without a tag; say what it holds (sh, text, json …)");
        continue;
      }
      if (OTHER_SHELL_TAGS.contains(fence.tag())) {
        problems.add(where + ": a '" + fence.tag() + "' block; write shell examples as 'sh' blocks, and what they print as a"
          + " 'text' block after them");
        continue;
      }
      if (!fence.tag().equals(SHELL)) {
        if (fence.lines().stream().anyMatch(l -> l.startsWith("$ "))) {
          problems.add(where + ": a '" + fence.tag() + "' block with '$ ' prompts looks like a shell example; write the commands"
            + " as an 'sh' block and what they print as a 'text' block after it");
        }
        continue;
      }
      Optional<String> notRun = fence.lines().stream().filter(l -> !l.isBlank()).findFirst()
        .map(NOT_RUN::matcher).filter(Matcher::matches).map(m -> m.group(1).strip());
      boolean untilCtrlC = fence.lines().stream().anyMatch(l -> UNTIL_CTRL_C.matcher(l).find());
      Optional<Fence> shown = f + 1 < fences.size() && fences.get(f + 1).tag().equals("text") && !fences.get(f + 1).headingBefore()
        ? Optional.of(fences.get(f + 1)) : Optional.empty();
      Example example = new Example(name, fence.line(), fence.lines(), notRun, untilCtrlC, shown);
      if (example.commands().isEmpty()) {
        problems.add(where + ": an 'sh' block with no command");
      }
      if (untilCtrlC && notRun.isEmpty() && shown.isEmpty()) {
        problems.add(where + ": a block that runs until Ctrl-C must show (in a 'text' block after it) what it prints once it is"
          + " up, so that the docs test knows when to go on");
      }
      (fence.inWalkthrough() ? walked : examples).add(example);
    }
    return new DocPage(name, List.copyOf(fences), List.copyOf(examples), List.copyOf(walked), List.copyOf(problems));
  }
}
