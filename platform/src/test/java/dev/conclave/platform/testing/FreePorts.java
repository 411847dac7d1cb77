package dev.conclave.platform.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Free TCP ports on 127.0.0.1 for test nodes. */
public final class FreePorts {

  private FreePorts() {
  }

  private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** A free port not handed out before in this JVM (the OS may offer the same one twice in a row). */
  public static int next() {
    for (int attempt = 0; attempt < 100; attempt++) {
      try (ServerSocket socket = new ServerSocket(0)) {
        socket.setReuseAddress(true);
        int port = socket.getLocalPort();
        if (HANDED_OUT.add(port)) {
          return port;
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new IllegalStateException("no unused free port found");
  }
}
