package dev.conclave.platform.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Free TCP ports for test nodes, all below the kernel's ephemeral range (32768 and up), so a test
 * that opens thousands of client connections never collides with a node's listening port. Each JVM
 * starts at its own offset (by process id) and never hands out a port twice.
 */
public final class FreePorts {

  static final int LOW = 10_000;
  static final int HIGH = 32_000;

  private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();
  private static final AtomicInteger NEXT = new AtomicInteger(LOW + (int) (ProcessHandle.current().pid() * 7919 % (HIGH - LOW)));

  private FreePorts() {
  }

  /** A port that is free on every interface now and was not handed out before in this JVM. */
  public static int next() {
    for (int attempt = 0; attempt < HIGH - LOW; attempt++) {
      int port = LOW + Math.floorMod(NEXT.getAndIncrement() - LOW, HIGH - LOW);
      if (!HANDED_OUT.contains(port) && bindable(port) && HANDED_OUT.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no free port between " + LOW + " and " + HIGH);
  }

  private static boolean bindable(int port) {
    try (ServerSocket any = new ServerSocket(); ServerSocket loopback = new ServerSocket()) {
      any.setReuseAddress(false);
      any.bind(new InetSocketAddress(port));
      any.close();
      loopback.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * A base port whose block of {@code size} ports is free now (on any address and on loopback), between
   * 20000 and {@link #HIGH}: for a script that derives every port of a local cluster from one base.
   */
  public static int block(int size) {
    for (int attempt = 0; attempt < 200; attempt++) {
      int base = java.util.concurrent.ThreadLocalRandom.current().nextInt(20_000, HIGH - size);
      boolean free = true;
      for (int p = base; p < base + size && free; p++) {
        try (ServerSocket any = new ServerSocket(); ServerSocket loopback = new ServerSocket()) {
          any.bind(new InetSocketAddress(p));
          any.close();
          loopback.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
        } catch (IOException taken) {
          free = false;
        }
      }
      if (free) {
        return base;
      }
    }
    throw new IllegalStateException("no free block of " + size + " ports between 20000 and " + HIGH);
  }
}
