package dev.conclave.node.docs;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the docs people read true to the repository: every path, class and member ARCHITECTURE.md
 * cites exists; the docs speak of the project's own work in words and dates, not issue numbers
 * (which mean nothing to a reader without the tracker); and every link between the docs, and every
 * quoted section name after a doc's file name ({@code BENCHMARKS.md, "Cluster"}), leads somewhere.
 * docs/benchmarks-history.md is a journal and is left as it was written.
 */
class DocsStayTrueTest {

  /** Types ARCHITECTURE.md names that come from the libraries we use, not from this repository. */
  static final Set<String> LIBRARY_TYPES = Set.of(
      "VerticleBase", "GrpcServer", "Router", "ClusterHealthCheck", "ServiceLoader", "Runtime",
      "CompletableFuture");

  private static final Pattern BACKTICKED = Pattern.compile("`([^`\\n]+)`");
  /** {@code pkg.Type}, {@code Type}, {@code Type.member}, {@code pkg.Type.member}. */
  private static final Pattern TYPE = Pattern.compile(
      "((?:[a-z][a-z0-9]*\\.)*)([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)(?:\\.([A-Za-z_][A-Za-z0-9_]*))?(?:\\(\\))?");
  private static final Pattern MODULE_THEN_PATH = Pattern.compile(
      "\\b(gateway|coordinator|pack-host|agent-sdk|agent-runtime|console|node|platform|e2e|client-cli) `([^`\\n]+)`");
  private static final Pattern ISSUE = Pattern.compile("(?i)\\bissues?\\s+#?\\d+|(?<![\\w.#/&-])#\\d+\\b");
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s#]*)(?:#([^)\\s]*))?\\)");
  private static final Pattern QUOTED_SECTION = Pattern.compile("([\\w./-]+\\.md),?\\s+\"([^\"]+)\"");

  private static RepoFiles repo;

  @BeforeAll
  static void load() {
    repo = RepoFiles.load();
  }

  @Test
  void everyPathArchitectureCitesExists() {
    String doc = repo.read("ARCHITECTURE.md");
    Set<String> missing = new TreeSet<>();
    Set<String> seen = new TreeSet<>();
    Matcher m = MODULE_THEN_PATH.matcher(doc);
    while (m.find()) {
      for (String cited : m.group(2).split(",\\s*")) {
        if (looksLikePath(cited)) {
          seen.add(cited);
          if (!repo.cited(cited, m.group(1))) missing.add(m.group(1) + " " + cited);
        }
      }
    }
    Matcher b = BACKTICKED.matcher(doc);
    while (b.find()) {
      String cited = b.group(1);
      if (looksLikePath(cited) && !seen.contains(cited) && !repo.cited(cited, "")) missing.add(cited);
    }
    assertThat(missing).as("paths ARCHITECTURE.md cites that are not in the repository").isEmpty();
  }

  @Test
  void everyClassArchitectureCitesExists() {
    String doc = repo.read("ARCHITECTURE.md");
    Set<String> missing = new TreeSet<>();
    Matcher b = BACKTICKED.matcher(doc);
    while (b.find()) {
      Matcher t = TYPE.matcher(b.group(1));
      if (!t.matches()) continue;
      String packages = t.group(1);
      String type = t.group(2);
      String member = t.group(3);
      if (LIBRARY_TYPES.contains(type) && packages.isEmpty()) continue;
      List<String> sources = new ArrayList<>(repo.javaFiles(packages + type));
      if (packages.isEmpty()) sources.addAll(protoFilesDeclaring(type));
      if (sources.isEmpty()) {
        missing.add(b.group(1) + " (no such class)");
      } else if (member != null && sources.stream().noneMatch(s -> repo.read(s).contains(member))) {
        missing.add(b.group(1) + " (no member " + member + ")");
      }
    }
    assertThat(missing).as("classes and members ARCHITECTURE.md cites that are not in the repository").isEmpty();
  }

  @Test
  void theDocsSpeakOfWorkInWordsNotIssueNumbers() {
    Set<String> found = new TreeSet<>();
    for (String doc : readDocs()) {
      String[] lines = repo.read(doc).split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        Matcher m = ISSUE.matcher(lines[i]);
        while (m.find()) found.add(doc + ":" + (i + 1) + ": " + m.group());
      }
    }
    assertThat(found).as("issue numbers in the docs (say what the work was, or its date)").isEmpty();
  }

  @Test
  void everyLinkAndQuotedSectionLeadsSomewhere() {
    Set<String> broken = new TreeSet<>();
    for (String doc : readDocs()) {
      String text = repo.read(doc);
      String dir = doc.contains("/") ? doc.substring(0, doc.lastIndexOf('/') + 1) : "";
      Matcher l = LINK.matcher(text);
      while (l.find()) {
        String target = l.group(1);
        if (target.contains(":")) continue;
        String file = target.isEmpty() ? doc : normalize(dir + target);
        if (!repo.exists(file)) {
          broken.add(doc + " -> " + target + " (no such file)");
        } else if (l.group(2) != null && file.endsWith(".md") && !anchors(file).contains(l.group(2))) {
          broken.add(doc + " -> " + target + "#" + l.group(2) + " (no such heading)");
        }
      }
      Matcher q = QUOTED_SECTION.matcher(text);
      while (q.find()) {
        String file = resolveDoc(dir, q.group(1));
        if (file == null) continue;
        String section = q.group(2).replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
        boolean found = sections(file).stream().anyMatch(h -> h.toLowerCase(Locale.ROOT).contains(section));
        if (!found) broken.add(doc + " -> " + q.group(1) + ", \"" + q.group(2) + "\" (no such section)");
      }
    }
    assertThat(broken).as("links and section references in the docs that lead nowhere").isEmpty();
  }

  private static boolean looksLikePath(String s) {
    return s.contains("/") && !s.startsWith("/") && !s.startsWith("$") && !s.startsWith(".")
        && !s.contains(" ") && !s.contains("<") && !s.contains(":") && !s.contains("*")
        && !s.startsWith("@") && !s.contains("+")
        && !s.startsWith("META-INF/") && !s.startsWith("src/");
  }

  private static List<String> protoFilesDeclaring(String type) {
    Pattern decl = Pattern.compile("\\b(?:message|service|enum|rpc)\\s+" + type + "\\b");
    return repo.paths.stream().filter(p -> p.endsWith(".proto") && p.contains("/src/"))
        .filter(p -> decl.matcher(repo.read(p)).find()).collect(Collectors.toList());
  }

  /** README.md, ARCHITECTURE.md, BENCHMARKS.md and docs/*.md, the history of benchmarks aside. */
  private static List<String> readDocs() {
    List<String> docs = new ArrayList<>(List.of("README.md", "ARCHITECTURE.md", "BENCHMARKS.md"));
    repo.paths.stream().filter(p -> p.matches("docs/[^/]+\\.md") && !p.equals("docs/benchmarks-history.md"))
        .sorted().forEach(docs::add);
    return docs;
  }

  private static String resolveDoc(String dir, String name) {
    for (String candidate : List.of(normalize(dir + name), name, "docs/" + name)) {
      if (repo.exists(candidate) && !candidate.endsWith("/")) return candidate;
    }
    return null;
  }

  private static String normalize(String path) {
    return repo.root.relativize(repo.root.resolve(path).normalize()).toString().replace('\\', '/');
  }

  private static List<String> headings(String file) {
    return repo.read(file).lines().filter(l -> l.matches("#{1,6} .*"))
        .map(l -> l.replaceFirst("^#+ ", "")).collect(Collectors.toList());
  }

  /** The headings, and the bold lead-ins of list items and paragraphs ({@code - **Set-based batches.**}). */
  private static List<String> sections(String file) {
    List<String> sections = new ArrayList<>(headings(file));
    Matcher bold = Pattern.compile("(?m)^(?:\\s*[-*] |\\d+\\. )?\\*\\*([^*]+)\\*\\*").matcher(repo.read(file));
    while (bold.find()) sections.add(bold.group(1));
    return sections;
  }

  /** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens. */
  private static Set<String> anchors(String file) {
    return headings(file).stream()
        .map(h -> h.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'))
        .collect(Collectors.toSet());
  }
}
