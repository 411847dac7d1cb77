package dev.conclave.node.docs;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.status.Status;
import dev.conclave.platform.logging.EscapedMessageConverterTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's own log configuration (what a running node writes to stderr) escapes what could forge a line. */
class LogConfigurationTest {

  @Test
  void theNodesLogWritesOneLinePerEvent() throws Exception {
    EscapedMessageConverterTest.assertOneLinePerEvent(LogConfigurationTest.class.getResource("/logback.xml"), "text");
  }

  /**
   * A configuration logback warns about makes logback print its whole status list on standard output
   * at every start: forty lines in front of the token {@code ./conclave token > agent.token} writes.
   */
  @Test
  void theConfigurationLoadsWithoutAWarning() throws Exception {
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LogConfigurationTest.class.getResource("/logback.xml"));
    assertThat(context.getStatusManager().getCopyOfStatusList())
      .filteredOn(s -> s.getLevel() >= Status.WARN)
      .extracting(Status::getMessage)
      .isEmpty();
    context.stop();
  }
}
