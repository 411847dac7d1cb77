package dev.conclave.e2e.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * How a test starts a JVM of its own (a node, an agent program, a CLI command): this JDK's {@code java},
 * a heap bound, the serial collector, and the options the build gives every such process in
 * {@code -Dconclave.test.jvmOptions} (the e2e pom: C1 only, since a test's process lives seconds and a
 * saturated 2-core machine would spend much of them compiling with C2). A benchmark's processes do
 * not get them unless its run says so.
 */
public final class TestJvm {

  /** The system property with the options, separated by spaces. */
  public static final String OPTIONS = "conclave.test.jvmOptions";

  private TestJvm() {
  }

  /** {@code java -Xmx<maxHeap> -XX:+UseSerialGC <the build's options> <args>}. */
  public static List<String> command(String maxHeap, String... args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + maxHeap,
      "-XX:+UseSerialGC"));
    cmd.addAll(options());
    cmd.addAll(Arrays.asList(args));
    return cmd;
  }

  /** The build's options for test processes, none when it gives none. */
  public static List<String> options() {
    String options = System.getProperty(OPTIONS, "").strip();
    return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
  }
}
