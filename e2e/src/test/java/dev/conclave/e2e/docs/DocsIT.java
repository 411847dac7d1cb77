package dev.conclave.e2e.docs;

import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every shell example of the user docs (README.md, docs/*.md, agent-runtime/README.md,
 * console/README.md) runs against a real node, in order, page by page, as a reader would run it in a
 * checkout of the repository ({@link RepoCopy}); each must succeed and print what the page shows
 * after it. The node is the README's first example, {@code ./conclave up}, started before the pages
 * and stopped with Ctrl-C after them. Ports move only through the documented variables
 * ({@code CONCLAVE_HTTP_PORT}, {@code CONCLAVE_GRPC_PORT}), set in every page's shell.
 *
 * <p>A block that cannot run here says so with a visible marker, {@code # not run in CI: <reason>},
 * and is counted. The conventions are in README.md, "Examples in these docs".
 */
class DocsIT {

  private static final Duration BLOCK_LIMIT = Duration.ofMinutes(5);
  private static final String HISTORY = "benchmarks-history.md";
  /**
   * Pages whose walkthrough needs more than the README's node (their own node, agent programs with a
   * stand-in backend) and is run, as one script, by a test of its own.
   */
  private static final Map<String, String> WALKTHROUGH_TESTS = Map.of("docs/swarm-agents.md", "e2e SwarmAgentsDocIT");
  private static final Duration UP_LIMIT = Duration.ofMinutes(5);
  private static final Duration STOP_LIMIT = Duration.ofMinutes(2);

  private static Path work;
  private static RepoCopy repo;
  private static Map<String, String> env;
  private static int httpPort;
  private static int grpcPort;
  private static List<DocPage> pages;
  private static DocPage.Example nodeExample;
  private static PageShell nodeShell;
  private static PageShell.Background node;

  @BeforeAll
  static void startTheReadmesNode() throws IOException {
    work = Path.of(System.getProperty("console.target.dir", "target")).resolve("docs-run").toAbsolutePath();
    TestDatabase.deleteTree(work);   // an earlier run's output must not pass for this one's
    repo = RepoCopy.create(work.resolve("repo"));
    httpPort = FreePorts.next();
    grpcPort = FreePorts.next();
    env = Map.of("CONCLAVE_HTTP_PORT", Integer.toString(httpPort), "CONCLAVE_GRPC_PORT", Integer.toString(grpcPort));
    pages = pageFiles(repo.source()).stream().map(f -> DocPage.read(repo.source(), f)).toList();
    DocPage readme = pages.get(0);
    nodeExample = readme.examples().isEmpty() ? null : readme.examples().get(0);
    assertThat(nodeExample).as("README.md's first sh block starts the node").isNotNull();
    assertThat(nodeExample.commands()).as(nodeExample.where() + ": README.md's first sh block starts the node")
      .containsExactly("./conclave up");
    assertThat(nodeExample.runsUntilCtrlC()).as(nodeExample.where() + " says it runs until Ctrl-C").isTrue();
    assertThat(nodeExample.shownOutput()).as(nodeExample.where() + " shows its ready line").isPresent();
    nodeShell = new PageShell(repo.root(), env, work.resolve("node"));
    List<PageShell.Background> started = new ArrayList<>();
    Optional<String> notUp = nodeShell.start(nodeExample.lines(), shows(nodeExample), UP_LIMIT, started);
    assertThat(notUp).as(nodeExample.where() + ": ./conclave up").isEmpty();
    node = started.get(0);
  }

  @AfterAll
  static void stopTheNodeWithCtrlC() {
    if (nodeShell == null) {
      return;
    }
    try {
      if (node != null) {
        PageShell.Run stop = nodeShell.interrupt(node, STOP_LIMIT);
        assertThat(stop.status()).as(nodeExample.where() + ": ./conclave up after Ctrl-C exits 0 (README.md); stderr:\n"
          + String.join("\n", PageShell.tail(stop.stderr(), 30))).isZero();
      }
    } finally {
      nodeShell.close();
    }
  }

  @Test
  void everyShellExampleRunsAndPrintsWhatItsPageShows() {
    List<String> failures = new ArrayList<>();
    List<String> marked = new ArrayList<>();
    Map<String, String> perPage = new LinkedHashMap<>();
    int run = 0;
    int walked = 0;
    pages.forEach(p -> failures.addAll(p.problems()));
    for (DocPage doc : pages) {
      if (!doc.walkthrough().isEmpty() && !WALKTHROUGH_TESTS.containsKey(doc.name())) {
        failures.add(doc.name() + ": a walkthrough no test runs; name its test in DocsIT.WALKTHROUGH_TESTS");
      }
      walked += doc.walkthrough().size();
    }
    int page = 0;
    for (DocPage doc : pages) {
      page++;
      int pageRun = 0;
      int pageMarked = 0;
      try (PageShell shell = new PageShell(repo.root(), env, work.resolve("page-" + page))) {
        List<PageShell.Background> background = new ArrayList<>();
        for (DocPage.Example ex : doc.examples()) {
          if (ex.notRunReason().isPresent()) {
            marked.add(ex.where() + ": " + ex.notRunReason().get());
            pageMarked++;
            continue;
          }
          pageRun++;
          run++;
          if (ex == nodeExample) {
            continue;   // running since the start: the node every page uses
          }
          if (ex.runsUntilCtrlC()) {
            shell.start(ex.lines(), shows(ex), BLOCK_LIMIT, background)
              .ifPresent(why -> failures.add(ex.where() + ": " + why));
            continue;
          }
          PageShell.Run result = shell.run(ex.lines(), BLOCK_LIMIT);
          System.out.println("docs: " + ex.where() + " took " + result.took().toMillis() + " ms");
          if (!result.ok()) {
            failures.add(ex.where() + ": " + (result.status() == -1 ? result.failures() : "a command failed (status " + result.status()
              + ")\n" + result.failures()) + "\nstdout:\n" + String.join("\n", PageShell.tail(result.stdout(), 30))
              + "\nstderr:\n" + String.join("\n", PageShell.tail(result.stderr(), 30)));
            continue;
          }
          ex.shownOutput().flatMap(shown -> new ShownOutput(shown.lines(), httpPort, grpcPort).firstMissing(result.stdout()))
            .ifPresent(missing -> failures.add(ex.where() + ": prints no line like the page's\n  " + missing + "\nstdout:\n"
              + String.join("\n", result.stdout())));
          rebuilt(result.stderr()).ifPresent(line -> failures.add(ex.where() + ": " + line));
        }
        for (PageShell.Background bg : background) {
          PageShell.Run stop = shell.interrupt(bg, STOP_LIMIT);
          if (!stop.ok()) {
            failures.add(doc.name() + ": the block that runs until Ctrl-C (block " + bg.index() + ") did not end cleanly on Ctrl-C"
              + " (status " + stop.status() + ")\n" + stop.failures() + "\nstderr:\n" + String.join("\n", PageShell.tail(stop.stderr(), 30)));
          }
        }
        List<String> left = shell.leftRunning();
        if (!left.isEmpty()) {
          System.out.println("docs: " + doc.name() + " left running (ended by the test): " + left);
        }
      }
      perPage.put(doc.name(), pageRun + " run, " + pageMarked + " marked"
        + (doc.walkthrough().isEmpty() ? "" : ", " + doc.walkthrough().size() + " in its walkthrough, run by " + WALKTHROUGH_TESTS.get(doc.name())));
    }
    perPage.forEach((name, counts) -> System.out.println("docs: " + name + ": " + counts));
    System.out.println("docs: " + run + " blocks run, " + walked + " run by their page's walkthrough test, " + marked.size() + " marked (reasons:");
    marked.forEach(m -> System.out.println("docs:   " + m));
    System.out.println("docs: )");
    if (!repo.jarUnchanged()) {
      failures.add("the node jar changed while the examples ran: ./conclave rebuilt it");
    }
    assertThat(failures).as("examples of the docs that do not run as written").isEmpty();
  }

  /**
   * {@code ./conclave token} prints the token on standard output and one line of progress on standard
   * error: no log lines, no migration notes, whether a node runs on the data dir or not.
   */
  @Test
  void aTokenCommandPrintsItsTokenAndOneLineOfProgress() throws Exception {
    Cli withNode = cli(env, "token", "--new-client", "one-line");
    assertThat(withNode.stdout()).as("stdout").hasSize(1);
    assertThat(withNode.stdout().get(0)).as("a JWT").matches("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");
    assertThat(withNode.stderr()).as("stderr").hasSize(1);
    assertThat(withNode.stderr().get(0)).startsWith("token: principal=");

    Path fresh = work.resolve("fresh-data");
    TestDatabase.deleteTree(fresh);
    Map<String, String> alone = new HashMap<>(env);
    alone.put("CONCLAVE_DATA_DIR", fresh.toString());
    Cli noNode = cli(alone, "token", "--new-agent", "one-line-agent");
    assertThat(noNode.stdout()).as("stdout").hasSize(1);
    assertThat(noNode.stderr()).as("stderr: what the command did, in its own words").allMatch(l -> l.startsWith("token: "))
      .anyMatch(l -> l.startsWith("token: principal="));
  }

  private record Cli(List<String> stdout, List<String> stderr) {
  }

  private static Cli cli(Map<String, String> vars, String... args) throws Exception {
    Path out = Files.createTempFile(work, "cli-", ".out");
    Path err = Files.createTempFile(work, "cli-", ".err");
    List<String> cmd = new ArrayList<>(List.of("./conclave"));
    cmd.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(cmd).directory(repo.root().toFile())
      .redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    builder.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    builder.environment().putAll(vars);
    Process p = builder.start();
    assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("./conclave " + String.join(" ", args) + " ends").isTrue();
    Cli result = new Cli(Files.readAllLines(out, StandardCharsets.UTF_8), Files.readAllLines(err, StandardCharsets.UTF_8));
    assertThat(p.exitValue()).as("exit code; stderr:\n" + String.join("\n", result.stderr())).isZero();
    return result;
  }

  /**
   * README.md first, then docs/ by name, then the modules' READMEs the README links. Not the
   * benchmarks' history (docs/benchmarks-history.md): a journal of past runs, whose commands are records
   * of what was run then (benchmarks of many minutes, builds since changed), not examples to follow.
   */
  static List<Path> pageFiles(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.getFileName().toString().endsWith(".md")).filter(p -> !p.getFileName().toString().equals(HISTORY)).sorted()
        .forEach(files::add);
    }
    files.add(root.resolve("agent-runtime/README.md"));
    files.add(root.resolve("console/README.md"));
    return files;
  }

  private static java.util.function.Predicate<List<String>> shows(DocPage.Example ex) {
    ShownOutput shown = new ShownOutput(ex.shownOutput().orElseThrow().lines(), httpPort, grpcPort);
    return output -> shown.firstMissing(output).isEmpty();
  }

  private static Optional<String> rebuilt(List<String> stderr) {
    return stderr.stream().filter(l -> l.startsWith("conclave: building")).findFirst();
  }
}
