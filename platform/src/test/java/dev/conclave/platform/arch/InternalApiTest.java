package dev.conclave.platform.arch;

import dev.conclave.platform.arch.SourceTree.Source;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * House rules (issue 16): only {@code platform} may use Vert.x internals ({@code io.vertx.core.impl},
 * {@code io.vertx.core.internal}, and the {@code impl}/{@code internal} packages of every other Vert.x
 * module, such as {@code io.vertx.ext.web.handler.sockjs.impl}), and it offers what a role needs as a small service (for example
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
      if (s.codeLines().stream().anyMatch(InternalApiTest::vertxInternal)) {
        offenders.add(s.relative());
      }
    }
    assertThat(offenders).as("classes outside platform that use Vert.x internals (an impl or internal package)").isEmpty();
  }

  /** Vert.x keeps internals in {@code impl} and {@code internal} packages in every module, not only in core. */
  @Test
  void theRuleSeesTheInternalsOfEveryVertxModule() {
    assertThat(List.of("import io.vertx.core.impl.VertxImpl;", "import io.vertx.core.internal.ContextInternal;",
      "import io.vertx.ext.web.handler.sockjs.impl.EventBusBridgeImpl;", "if (x instanceof io.vertx.core.net.impl.ConnectionBase b) {",
      "import io.vertx.grpc.common.impl.GrpcWriteStreamBase;", "import io.vertx.sqlclient.impl.pool.SqlConnectionPool;"))
      .allMatch(InternalApiTest::vertxInternal);
    assertThat(List.of("import io.vertx.ext.web.handler.sockjs.SockJSHandler;", "import io.vertx.core.Vertx;",
      "import dev.conclave.gateway.impl.Thing;", "String implied = \"io.vertx.core\";"))
      .noneMatch(InternalApiTest::vertxInternal);
  }

  /**
   * A role does not ask Vert.x whether it runs clustered: the node knows its cluster mode from its
   * configuration ({@code ConclaveConfig.clustered()}), and a role is given what it decides with it.
   */
  @Test
  void onlyPlatformAsksVertxWhetherItIsClustered() {
    List<String> offenders = SourceTree.allMainSources().stream()
      .filter(s -> !s.module().equals("platform"))
      .filter(s -> uses(s, ".isClustered()"))
      .map(Source::relative)
      .toList();
    assertThat(offenders).as("classes outside platform that call Vertx.isClustered()").isEmpty();
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

  /** A line of code that names a class in an {@code impl} or {@code internal} package of a Vert.x module. */
  static boolean vertxInternal(String line) {
    return VERTX_INTERNALS.matcher(line).find();
  }

  private static final Pattern VERTX_INTERNALS = Pattern.compile("\\bio\\.vertx\\.(?:\\w+\\.)*?(?:impl|internal)\\.");

  /** An import of, or a fully qualified reference into, {@code pkg} in code (comments do not count). */
  private static boolean uses(Source s, String pkg) {
    return s.codeLines().stream().anyMatch(l -> l.contains(pkg));
  }
}
