package dev.conclave.platform.logging;

import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * What every log line of this process says about the node: its id, as the logging context's property
 * {@value #NODE} (JSON lines carry it as {@code context.properties.node}; text lines, read on one
 * node, do not repeat it).
 */
public final class NodeLogContext {

  public static final String NODE = "node";

  private NodeLogContext() {
  }

  /**
   * Names this node in every line logged from now on, and sends what libraries log through
   * java.util.logging (the OpenTelemetry SDK) into logback, so that a JSON log holds only JSON lines;
   * nothing when logback is not the logging backend.
   */
  public static void nodeId(String nodeId) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.putProperty(NODE, nodeId);
      if (!SLF4JBridgeHandler.isInstalled()) {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
      }
    }
  }
}
