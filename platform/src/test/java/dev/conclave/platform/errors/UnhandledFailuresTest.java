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

  /** The frames of the pool-timer race as a node logged them in a partition (FaultScenariosIT, 2026-11-27). */
  static IllegalStateException poolTimerRace() {
    IllegalStateException e = new IllegalStateException("Promise already completed");
    e.setStackTrace(new StackTraceElement[] {
      new StackTraceElement("io.vertx.core.Promise", "fail", "Promise.java", 110),
      new StackTraceElement("io.vertx.sqlclient.impl.pool.SqlConnectionPool$1PoolRequest", "lambda$onEnqueue$1", "SqlConnectionPool.java", 304),
      new StackTraceElement("io.vertx.core.Completable", "succeed", "Completable.java", 31),
      new StackTraceElement("io.vertx.core.internal.pool.SimpleConnectionPool$Cancel", "run", "SimpleConnectionPool.java", 688),
      new StackTraceElement("io.vertx.core.internal.pool.SimpleConnectionPool", "cancel", "SimpleConnectionPool.java", 650),
      new StackTraceElement("io.vertx.sqlclient.impl.pool.SqlConnectionPool$1PoolRequest", "lambda$onEnqueue$2", "SqlConnectionPool.java", 300),
      new StackTraceElement("io.vertx.core.impl.VertxImpl$InternalTimerHandler", "handle", "VertxImpl.java", 1023)});
    return e;
  }

  @Test
  void onlyThePoolTimerRaceIsKnownAndHarmless() {
    assertThat(KnownUpstreamFaults.describe(poolTimerRace())).contains(KnownUpstreamFaults.POOL_TIMER_RACE);
    assertThat(KnownUpstreamFaults.describe(new IllegalStateException("Promise already completed")))
      .as("the same words from anywhere else are a fault of ours").isEmpty();
    IllegalStateException other = new IllegalStateException("a bug");
    other.setStackTrace(poolTimerRace().getStackTrace());
    assertThat(KnownUpstreamFaults.describe(other)).isEmpty();
  }

  @Test
  void thePoolTimerRaceIsOneWarningWithoutAStack() throws InterruptedException {
    Logger unhandled = (Logger) LoggerFactory.getLogger("dev.conclave.unhandled");
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    unhandled.addAppender(lines);
    try (TestNode node = TestNode.builder().start()) {
      node.runtime().context().vertx().runOnContext(v -> {
        throw poolTimerRace();
      });
      long deadline = System.currentTimeMillis() + 5_000;
      while (lines.list.isEmpty() && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
      assertThat(lines.list).singleElement().satisfies(line -> {
        assertThat(line.getLevel()).isEqualTo(Level.WARN);
        assertThat(line.getFormattedMessage()).contains("harmless", "vert.x#6169");
        assertThat(line.getThrowableProxy()).isNull();
      });
    } finally {
      unhandled.detachAppender(lines);
    }
  }
}
