package dev.conclave.agentruntime.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** A free port on 127.0.0.1 below 32768 (the ephemeral range is left to the system). */
public final class Ports {

  private Ports() {
  }

  public static int free() {
    for (int i = 0; i < 200; i++) {
      int port = ThreadLocalRandom.current().nextInt(20000, 32000);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException busy) {
        // try another
      }
    }
    throw new IllegalStateException("no free port found below 32768");
  }
}
