package dev.conclave.node.fuzz;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What no answer of the node may contain: the name of a Java class (an exception's above all) or a stack frame. */
final class Leaks {

  private static final Pattern JAVA_NAME = Pattern.compile(
    // a qualified name in a package of the JDK or of a library the node runs on
    "\\b(?:java|javax|jdk|sun|com\\.sun|io\\.vertx|io\\.netty|com\\.fasterxml|tools\\.jackson|com\\.google|org\\.postgresql|io\\.micrometer"
      + "|com\\.hazelcast|dev\\.conclave|org\\.slf4j|ch\\.qos|io\\.modelcontextprotocol|org\\.apache|org\\.flywaydb|io\\.zonky)"
      + "\\.[a-z0-9_]+(?:\\.[A-Za-z0-9_$]+)+"
      // a simple name of an exception or error class (NullPointerException, StackOverflowError)
      + "|\\b[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)?Exception\\b|\\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*Error\\b"
      // a stack frame
      + "|\\bat [a-z][a-z0-9_]*\\.[a-z0-9_.]+[A-Z]\\w*\\.\\w+\\(");

  private Leaks() {
  }

  /** The first Java class name (or stack frame) in {@code text}, or null. */
  static String javaName(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    Matcher m = JAVA_NAME.matcher(text);
    while (m.find()) {
      String found = m.group();
      // names of the protocol's own messages are not Java classes leaking
      if (found.equals("RegistrationError")) {
        continue;
      }
      return found;
    }
    return null;
  }
}
