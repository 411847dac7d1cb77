package dev.conclave.node;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import dev.conclave.platform.config.NodeSettings;
import org.slf4j.LoggerFactory;

import java.util.Map;

/**
 * A command that prints one result ({@code token}: a token, a key id) keeps Conclave's own INFO logs
 * (migrations applied, a secret generated, PostgreSQL started) to itself: they describe a node's
 * start, and a reader of the command wants its result and one line saying what it did. Warnings and
 * errors still show; {@code CONCLAVE_LOG_LEVEL}, when set, decides as it does for a node.
 */
final class CliLogs {

  private CliLogs() {
  }

  static void quiet(Map<String, String> env) {
    if (env.containsKey(NodeSettings.LOG_LEVEL.name())) {
      return;
    }
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.getLogger("dev.conclave").setLevel(Level.WARN);
    }
  }

  /**
   * The client commands ({@code send}, {@code agents} …) say what went wrong in their own one line;
   * the HTTP client's warnings (a connection the server closed after a 401) would only repeat it
   * in another form, and Vert.x's blocked-thread warnings on a loaded machine are not the user's
   * business. {@code CONCLAVE_LOG_LEVEL}, when set, shows them again.
   */
  static void quietClient(Map<String, String> env) {
    if (env.containsKey(NodeSettings.LOG_LEVEL.name())) {
      return;
    }
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      // the log configuration (NodeLogConfigurator) sets these loggers' own levels, which a root level would not override
      for (String name : java.util.List.of(org.slf4j.Logger.ROOT_LOGGER_NAME, "io.vertx", "io.netty", "dev.conclave")) {
        context.getLogger(name).setLevel(Level.ERROR);
      }
    }
  }
}
