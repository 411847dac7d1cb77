package dev.conclave.platform.errors;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conclave.platform.testing.TestNode;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** What a node's handlers throw and nobody catches is reported like any other failure. */
class UnhandledFailuresTest {

  @Test
  void aThrowingHandlerIsAnErrorWithAReferenceAndBadInputAWarning() throws InterruptedException {
    Logger unhandled = (Logger) LoggerFactory.getLogger("dev.conclave.unhandled");
    Logger badInput = (Logger) LoggerFactory.getLogger("dev.conclave.badinput");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    // an earlier test may have spent this second's budget of bad-input lines
    BadInputLog.newWindow();
    unhandled.addAppender(lines);
    badInput.addAppender(lines);
    try (TestNode node = TestNode.builder().start()) {
      node.runtime().context().vertx().runOnContext(v -> {
        throw new IllegalStateException("a bug");
      });
      node.runtime().context().vertx().runOnContext(v -> {
        throw ConclaveException.invalid("field_invalid", "nobody caught this refusal");
      });
      long deadline = System.currentTimeMillis() + 5_000;
      while (lines.list.size() < 2 && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertThat(lines.list).anySatisfy(line -> {
        assertThat(line.getLevel()).isEqualTo(Level.ERROR);
        assertThat(line.getFormattedMessage()).contains("ref=");
      });
      assertThat(lines.list).anySatisfy(line -> {
        assertThat(line.getLevel()).isEqualTo(Level.WARN);
        assertThat(line.getThrowableProxy()).isNull();
      });
    } finally {
      unhandled.detachAppender(lines);
      badInput.detachAppender(lines);
    }
  }
}
