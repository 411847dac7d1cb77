package dev.conclave.e2e.console;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * When a test fails: a screenshot, the console log and the DOM of every open browser, and the
 * nodes' logs, in {@code target/console-failures/<test>/}, and the browsers' console output on
 * stderr (which Failsafe keeps in the test's output file).
 */
final class FailureReport implements TestWatcher {

  private final Supplier<List<Browser>> browsers;
  private final Supplier<ConsoleCluster> cluster;

  FailureReport(Supplier<List<Browser>> browsers, Supplier<ConsoleCluster> cluster) {
    this.browsers = browsers;
    this.cluster = cluster;
  }

  static Path targetDir() {
    return Path.of(System.getProperty("console.target.dir", "target"));
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    String test = context.getRequiredTestMethod().getName();
    Path dir = targetDir().resolve("console-failures").resolve(test);
    for (Browser b : browsers.get().stream().filter(Objects::nonNull).toList()) {
      b.dump(dir, test);
      System.err.println("browser " + b.name() + " after " + test + " failed: see " + dir);
    }
    ConsoleCluster c = cluster.get();
    if (c != null) {
      c.dumpLogs(dir);
    }
  }
}
