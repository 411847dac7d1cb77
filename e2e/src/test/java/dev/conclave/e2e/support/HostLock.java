package dev.conclave.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Semaphore;

/**
 * A resource of the whole host that tests in several JVMs (failsafe's forks) must take turns with, such
 * as the network-namespace bridge: a lock file under the temporary directory, held with an OS file lock
 * (which the kernel releases when a JVM dies), and a semaphore for the threads of one JVM (an OS lock is
 * held per process, not per thread).
 */
public final class HostLock {

  /** {@link NetnsCluster}'s bridge {@code cnclv0}, namespaces {@code cnclv-pod-K} and 10.213.0.0/24. */
  public static final HostLock NETNS = new HostLock("netns");

  private final Path file;
  private final Semaphore inThisJvm = new Semaphore(1, true);

  private HostLock(String name) {
    this.file = Path.of(System.getProperty("java.io.tmpdir"), "conclave-host-" + name + ".lock");
  }

  /** Waits until no other test, in this JVM or another, holds the lock, then holds it until {@link Held#close}. */
  public Held acquire() {
    inThisJvm.acquireUninterruptibly();
    try {
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      try {
        return new Held(channel, channel.lock());
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
    } catch (IOException e) {
      inThisJvm.release();
      throw new UncheckedIOException("cannot lock " + file, e);
    } catch (RuntimeException e) {
      inThisJvm.release();
      throw e;
    }
  }

  /** The lock while held; closing it twice is harmless. */
  public final class Held implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    private Held(FileChannel channel, FileLock lock) {
      this.channel = channel;
      this.lock = lock;
    }

    @Override
    public synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      try {
        lock.release();
        channel.close();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot release " + file, e);
      } finally {
        inThisJvm.release();
      }
    }
  }
}
