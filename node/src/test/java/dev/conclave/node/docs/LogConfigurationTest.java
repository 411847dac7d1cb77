package dev.conclave.node.docs;

import dev.conclave.platform.logging.EscapedMessageConverterTest;
import org.junit.jupiter.api.Test;

/** The node's own log configuration (what a running node writes to stderr) escapes what could forge a line. */
class LogConfigurationTest {

  @Test
  void theNodesLogWritesOneLinePerEvent() throws Exception {
    EscapedMessageConverterTest.assertOneLinePerEvent(LogConfigurationTest.class.getResource("/logback.xml"), "ERR");
  }
}
