package dev.conclave.platform.testing;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.conclave.platform.testing.Await.await;

/**
 * A TCP route from a client to a node's HTTP/2 (gRPC) port on 127.0.0.1 that faults the way a network
 * or a peer can: it can freeze, reading neither side and keeping both sockets open as a suspended
 * process or a black-holed route would, and it can swallow the client's PING answers (HTTP/2 PING
 * frames with the ACK flag), some or all, and pass everything else. One client connection at a time.
 */
public final class Http2Route implements AutoCloseable {

  /** The client connection preface's length (RFC 9113 §3.4), then a frame header's. */
  private static final int PREFACE = 24;
  private static final int FRAME_HEADER = 9;
  private static final byte PING = 0x6;
  private static final byte ACK = 0x1;

  private final NetServer server;
  private final int port = FreePorts.next();
  private final List<NetSocket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean frozen;
  /** PING answers still to swallow; negative: all of them. */
  private final AtomicInteger toDrop = new AtomicInteger();
  private final AtomicInteger dropped = new AtomicInteger();
  /** The client's bytes not yet forwarded: the connection preface, then whole HTTP/2 frames. */
  private Buffer pending = Buffer.buffer();
  private boolean prefaceSeen;

  public Http2Route(Vertx vertx, SocketAddress target) {
    var upstream = vertx.createNetClient();
    server = vertx.createNetServer().connectHandler(clientSide -> {
      clientSide.pause();
      upstream.connect(target).onSuccess(nodeSide -> {
        sockets.add(clientSide);
        sockets.add(nodeSide);
        clientSide.handler(bytes -> forwardFrames(bytes, nodeSide));
        nodeSide.handler(bytes -> forward(bytes, clientSide));
        clientSide.closeHandler(v -> nodeSide.close());
        nodeSide.closeHandler(v -> clientSide.close());
        clientSide.resume();
      }).onFailure(err -> clientSide.close());
    });
    await(server.listen(port, "127.0.0.1"));
  }

  public SocketAddress address() {
    return SocketAddress.inetSocketAddress(port, "127.0.0.1");
  }

  public int port() {
    return port;
  }

  /** Stops passing bytes either way, and reading them, with both connections left open. */
  public void freeze() {
    frozen = true;
    sockets.forEach(NetSocket::pause);
  }

  /** Swallows every PING answer from now on. */
  public void dropPingAnswers() {
    toDrop.set(-1);
  }

  /** Swallows the next {@code count} PING answers. */
  public void dropPingAnswers(int count) {
    toDrop.set(count);
  }

  /** The PING answers swallowed so far. */
  public int droppedPingAnswers() {
    return dropped.get();
  }

  private void forward(Buffer bytes, NetSocket to) {
    if (!frozen) {
      to.write(bytes);
    }
  }

  /** Forwards the client's bytes frame by frame, leaving out PING answers when asked to. */
  private void forwardFrames(Buffer bytes, NetSocket to) {
    pending.appendBuffer(bytes);
    if (!prefaceSeen) {
      if (pending.length() < PREFACE) {
        return;
      }
      forward(pending.getBuffer(0, PREFACE), to);
      pending = pending.getBuffer(PREFACE, pending.length());
      prefaceSeen = true;
    }
    int at = 0;
    while (pending.length() - at >= FRAME_HEADER) {
      int length = pending.getUnsignedMedium(at);
      if (pending.length() - at < FRAME_HEADER + length) {
        break;
      }
      boolean pingAnswer = pending.getByte(at + 3) == PING && (pending.getByte(at + 4) & ACK) != 0;
      if (pingAnswer && takeDrop()) {
        dropped.incrementAndGet();
      } else {
        forward(pending.getBuffer(at, at + FRAME_HEADER + length), to);
      }
      at += FRAME_HEADER + length;
    }
    pending = pending.getBuffer(at, pending.length());
  }

  private boolean takeDrop() {
    int left = toDrop.get();
    if (left < 0) {
      return true;
    }
    return left > 0 && toDrop.compareAndSet(left, left - 1);
  }

  @Override
  public void close() {
    sockets.forEach(NetSocket::close);
    await(server.close());
  }
}
