package dev.conclave.node;

/** A process for {@link ShutdownTest}: waits for SIGTERM, then stops cleanly or with a failure. */
final class ShutdownProbe {

  private ShutdownProbe() {
  }

  public static void main(String[] args) {
    Shutdown shutdown = new Shutdown("probe");
    System.out.println("ready");
    System.out.flush();
    shutdown.awaitThenExit(() -> {
      if (args[0].equals("throw")) {
        throw new IllegalStateException("drain failed");
      }
      System.out.println("stopped");
    });
  }
}
