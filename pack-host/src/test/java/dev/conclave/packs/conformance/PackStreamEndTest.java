package dev.conclave.packs.conformance;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.RawPack;
import dev.conclave.platform.testing.GrpcCalls;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * However a pack's stream ends (the pack cancels it, or its connection closes, at any moment), its
 * tools leave the cluster at once: agents connecting afterwards do not see them, and another pack may
 * take their names. Nothing Vert.x throws while the stream ends stops that, and none of it is an
 * ERROR or a stack trace in the log: a pack going away is no server fault.
 */
class PackStreamEndTest {

  private static PackHost host;
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  @BeforeAll
  static void start() {
    host = PackHost.start();
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @BeforeEach
  void watchTheLog() {
    lines.start();
    root.addAppender(lines);
  }

  @AfterEach
  void nothingAtErrorOrWithAStack() {
    root.detachAppender(lines);
    assertThat(lines.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null)
      .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage()
        + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getClassName() + ": " + e.getThrowableProxy().getMessage())))
      .isEmpty();
  }

  @Test
  void aPackThatCancelsItsStreamLosesItsToolsAtOnce() {
    RawPack pack = host.registerPack(host.packToken("canceller"), RawPack.manifest("canceller", RawPack.tool("canceller_tool")));
    assertThat(toolsOfANewAgent("canceller-seer")).contains("canceller_tool");
    pack.reset();
    assertGone("canceller_tool");
    // and the name is free for another pack
    try (RawPack heir = host.registerPack(host.packToken("canceller-heir"), RawPack.manifest("canceller-heir", RawPack.tool("canceller_tool")))) {
      assertThat(heir.welcome().getRejectedToolsList()).isEmpty();
    }
  }

  @Test
  void aPackWhoseConnectionClosesLosesItsToolsAtOnce() {
    GrpcCalls own = new GrpcCalls(host.gw().vertx(), host.gw().node().grpcPort());
    RawPack.register(own, host.packToken("closer"), RawPack.manifest("closer", RawPack.tool("closer_tool")));
    assertThat(toolsOfANewAgent("closer-seer")).contains("closer_tool");
    own.close();
    assertGone("closer_tool");
    try (RawPack heir = host.registerPack(host.packToken("closer-heir"), RawPack.manifest("closer-heir", RawPack.tool("closer_tool")))) {
      assertThat(heir.welcome().getRejectedToolsList()).isEmpty();
    }
  }

  @Test
  void packsThatGoAwayWhileRegisteringLeaveNothingBehind() {
    String token = host.packToken("hasty");
    for (int i = 0; i < 20; i++) {
      RawPack pack = host.openPack(token, RawPack.manifest("hasty", RawPack.tool("hasty_tool")));
      if (i % 2 == 1) {
        sleep(i * 5L);
      }
      pack.reset();
    }
    assertGone("hasty_tool");
    try (RawPack heir = host.registerPack(host.packToken("hasty-heir"), RawPack.manifest("hasty-heir", RawPack.tool("hasty_tool")))) {
      assertThat(heir.welcome().getRejectedToolsList()).isEmpty();
    }
  }

  /** "At once": well within the seconds a node death may take, and with no ping interval to wait for. */
  private static void assertGone(String tool) {
    long deadline = System.currentTimeMillis() + 3_000;
    java.util.List<String> seen = toolsOfANewAgent("gone-" + tool);
    while (seen.contains(tool) && System.currentTimeMillis() < deadline) {
      sleep(100);
      seen = toolsOfANewAgent("gone-" + tool);
    }
    assertThat(seen).as("tools offered to a new agent after the pack went away").doesNotContain(tool);
  }

  private static final java.util.concurrent.atomic.AtomicInteger AGENTS = new java.util.concurrent.atomic.AtomicInteger();

  /** The tools in the Welcome of an agent that connects now (each a new agent: its own principal, its own id). */
  private static java.util.List<String> toolsOfANewAgent(String name) {
    try (PackHost.ToolAgent agent = host.agent(name + "-" + AGENTS.incrementAndGet())) {
      return agent.toolNames();
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
