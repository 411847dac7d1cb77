package dev.conclave.node.docs;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.Level;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.logging.NodeLogConfigurator;
import java.util.Map;
import ch.qos.logback.core.status.Status;
import dev.conclave.platform.logging.EscapedMessageConverterTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's own log configuration (what a running node writes to stderr) escapes what could forge a line. */
class LogConfigurationTest {

  @Test
  void theNodesLogWritesOneLinePerEvent() {
    LoggerContext context = new LoggerContext();
    NodeLogConfigurator.configure(context, Map.of());
    EscapedMessageConverterTest.assertOneLinePerEvent(context, NodeLogConfigurator.TEXT, "the node's log configuration");
  }

  /**
   * A configuration logback warns about makes logback print its whole status list on standard output
   * at every start: forty lines in front of the token {@code ./conclave token > agent.token} writes.
   */
  @Test
  void theConfigurationLoadsWithoutAWarning() {
    for (String format : NodeSettings.LOG_FORMATS) {
      LoggerContext context = new LoggerContext();
      NodeLogConfigurator.configure(context, Map.of(NodeSettings.LOG_FORMAT.name(), format, NodeSettings.LOG_LEVEL.name(), "DEBUG"));
      assertThat(context.getStatusManager().getCopyOfStatusList())
        .filteredOn(s -> s.getLevel() >= Status.WARN)
        .extracting(Status::getMessage)
        .isEmpty();
      assertThat(context.getLogger("dev.conclave").getLevel()).isEqualTo(Level.DEBUG);
      assertThat(context.getLogger("com.hazelcast").getLevel()).isEqualTo(Level.WARN);
      context.stop();
    }
  }

  /** The node's jar names the configuration to logback, and carries no XML that would make it step aside. */
  @Test
  void logbackFindsTheConfigurationInTheJar() throws Exception {
    ClassLoader loader = NodeLogConfigurator.class.getClassLoader();
    try (var in = loader.getResourceAsStream("META-INF/services/ch.qos.logback.classic.spi.Configurator")) {
      assertThat(in).isNotNull();
      assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip())
        .isEqualTo(NodeLogConfigurator.class.getName());
    }
    assertThat(java.nio.file.Path.of("src/main/resources/logback.xml")).doesNotExist();
  }
}
