package dev.conclave.platform.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conclave.platform.testing.TestNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that closes its connection before it has sent the whole body (a browser tab closed, a
 * program killed mid-upload) did nothing wrong the server must answer for: nothing at ERROR and no
 * stack trace in the log, whichever body-reading route it was on.
 */
class ClientClosedEarlyTest {

  private static TestNode node;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole()).start();
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  @Test
  void aBodyCutShortByTheClientIsNoErrorInTheLog() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    root.addAppender(lines);
    try {
      for (String path : new String[] {"/api/v1/whoami", "/api/v1/nothing-here", SessionEndpoint.PATH}) {
        for (int i = 0; i < 3; i++) {
          halfABody(path);
        }
      }
      // the node notices the close after the socket is gone
      Thread.sleep(1_500);
    } finally {
      root.detachAppender(lines);
    }
    assertThat(lines.list.stream()
      .filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || (e.getLevel().isGreaterOrEqual(Level.WARN) && e.getThrowableProxy() != null))
      .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage()
        + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getClassName())))
      .isEmpty();
  }

  /** A POST that announces 100 kB, sends 1 kB and closes the connection. */
  private static void halfABody(String path) throws Exception {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", node.httpPort()), 5_000);
      OutputStream out = socket.getOutputStream();
      out.write(("POST " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer " + node.adminToken()
        + "\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{\"a\":\"" + "x".repeat(1000))
        .getBytes(StandardCharsets.UTF_8));
      out.flush();
      Thread.sleep(200);
    }
  }
}
