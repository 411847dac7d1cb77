package dev.conclave.platform.arch;

import dev.conclave.platform.arch.SourceTree.Source;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * House rules (issue 16): only {@code platform} may use Vert.x internals ({@code io.vertx.core.impl},
 * {@code io.vertx.core.internal}), and it offers what a role needs as a small service (for example
 * {@code ClusterMembership}); no module uses {@code sun.misc} (shutdown is a JVM shutdown hook).
 */
class InternalApiTest {

  @Test
  void onlyPlatformUsesVertxInternals() {
    List<String> offenders = new ArrayList<>();
    for (Source s : SourceTree.allMainSources()) {
      if (s.module().equals("platform")) {
        continue;
      }
      if (uses(s, "io.vertx.core.impl.") || uses(s, "io.vertx.core.internal.")) {
        offenders.add(s.relative());
      }
    }
    assertThat(offenders).as("classes outside platform that use io.vertx.core.impl or io.vertx.core.internal").isEmpty();
  }

  @Test
  void nothingUsesSunMisc() {
    List<String> offenders = SourceTree.allMainSources().stream()
      .filter(s -> uses(s, "sun.misc."))
      .map(Source::relative)
      .toList();
    assertThat(offenders).as("classes that use sun.misc").isEmpty();
  }

  @Test
  void theScanSeesEveryModule() {
    assertThat(SourceTree.modules()).contains("settings", "platform", "gateway", "coordinator", "agent-sdk", "agent-runtime", "node");
  }

  /** An import of, or a fully qualified reference into, {@code pkg} in code (comments do not count). */
  private static boolean uses(Source s, String pkg) {
    return s.codeLines().stream().anyMatch(l -> l.contains(pkg));
  }
}
