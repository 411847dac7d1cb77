package dev.conclave.platform.bridge;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.auth.User;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.Session;
import io.vertx.ext.web.handler.sockjs.SockJSHandlerOptions;
import io.vertx.ext.web.handler.sockjs.SockJSSocket;
import io.vertx.ext.web.handler.sockjs.impl.SockJSSocketBase;

import java.util.Set;
import java.util.function.BiConsumer;

/**
 * A bridge socket as Vert.x's bridge (EventBusBridgeImpl) sees it, with the client's frames screened
 * first. That bridge logs a frame of an unknown type at ERROR, throws ClassCastException on fields of
 * the wrong JSON type, logs a socket failure (a message over the size limit) at ERROR with its stack,
 * and throws NullPointerException on a frame that arrives after such a failure. Here a frame of the
 * wrong shape is answered with the bridge's own error frame and never passed on; a socket failure goes
 * to {@code failed} (which closes the socket) and not to the bridge, and nothing from the socket
 * reaches the bridge after it. Everything else is delegated unchanged.
 *
 * <p>It extends {@link SockJSSocketBase} because the bridge casts to it to close an idle socket.
 */
final class ScreenedSocket extends SockJSSocketBase {

  private static final Set<String> TYPES = Set.of("ping", "send", "publish", "register", "unregister");
  /**
   * The largest inbound bridge frame, in bytes, on every transport. The HTTP server's WebSocket
   * limits (1 MiB a WebSocket frame, 4 MiB a message) do not bound a bridge frame: a message may come
   * in several WebSocket frames, SockJS puts several bridge frames in one message, and its XHR
   * transport is no WebSocket at all. A larger frame fails the socket ({@link #tooLarge}).
   */
  static final int MAX_FRAME_BYTES = 1024 * 1024;

  private final SockJSSocket socket;
  private final BiConsumer<SockJSSocket, Throwable> failed;
  private boolean broken;

  ScreenedSocket(Vertx vertx, SockJSSocket socket, BiConsumer<SockJSSocket, Throwable> failed) {
    super(vertx, socket.routingContext(), new SockJSHandlerOptions().setRegisterWriteHandler(false));
    this.socket = socket;
    this.failed = failed;
  }

  /** Vert.x's bridge's handler of the client's frames. */
  private Handler<Buffer> bridge;

  /**
   * Tells Vert.x's bridge that {@code address} is no longer followed, as if the client had sent the
   * UNREGISTER frame: the node ended the subscription (its caller lost access), and the bridge's
   * consumer must go with it, or it would go on feeding the address and refuse the client's next
   * REGISTER of it ({@code address_already_registered}) once access is given back.
   */
  void unregister(String address) {
    if (bridge != null && !broken) {
      bridge.handle(Buffer.buffer(new JsonObject().put("type", "unregister").put("address", address).encode()));
    }
  }

  @Override
  public SockJSSocket handler(Handler<Buffer> handler) {
    bridge = handler;
    socket.handler(handler == null ? null : data -> {
      if (broken) {
        return;
      }
      if (data.length() > MAX_FRAME_BYTES) {
        broken = true;
        tooLarge(data.length());
        return;
      }
      String refusal = refusal(data);
      if (refusal == null) {
        handler.handle(data);
      } else {
        socket.write(Buffer.buffer(new JsonObject().put("type", "err").put("body", refusal).encode()));
      }
    });
    return this;
  }

  /**
   * Says why in a frame, then fails the socket (which closes it): a SockJS session (Vert.x 5.0.7)
   * closes with SockJS's own 3000 "Go away!", never our 1009, and drops what is still queued when it
   * closes (an XHR client that is not polling right now), so the close waits for the frame to go out,
   * a few seconds at most.
   */
  private void tooLarge(int bytes) {
    boolean[] done = {false};
    Runnable fail = () -> {
      if (!done[0]) {
        done[0] = true;
        failed.accept(this, new FrameTooLarge(bytes));
      }
    };
    long timer = vertx.setTimer(TOO_LARGE_NOTICE_MS, t -> fail.run());
    socket.write(Buffer.buffer(new JsonObject().put("type", "err").put("body", "frame_too_large")
        .put("message", "a bridge frame may be at most " + MAX_FRAME_BYTES + " bytes").encode()))
      .onComplete(ar -> {
        vertx.cancelTimer(timer);
        fail.run();
      });
  }

  /** How long the notice of a frame too large may take to go out before the socket closes anyway. */
  private static final long TOO_LARGE_NOTICE_MS = 5_000;

  /** A client's frame over {@link #MAX_FRAME_BYTES}. */
  static final class FrameTooLarge extends RuntimeException {
    FrameTooLarge(int bytes) {
      super("a bridge frame may be at most " + MAX_FRAME_BYTES + " bytes, this one is " + bytes, null, false, false);
    }
  }

  /** Why a frame is not passed on, as the bridge's error body; null to pass it on. */
  static String refusal(Buffer data) {
    JsonObject frame;
    try {
      frame = new JsonObject(data.toString());
    } catch (DecodeException | ClassCastException e) {
      return null; // the bridge answers invalid_json itself, without logging
    }
    if (!(frame.getValue("type") instanceof String type)) {
      return frame.containsKey("type") ? "invalid_type" : null;
    }
    if (!TYPES.contains(type)) {
      return "invalid_type";
    }
    if (wrongType(frame, "address", String.class) || wrongType(frame, "replyAddress", String.class)) {
      return "invalid_address";
    }
    if (wrongType(frame, "headers", JsonObject.class)) {
      return "invalid_headers";
    }
    return null;
  }

  private static boolean wrongType(JsonObject frame, String field, Class<?> type) {
    Object value = frame.getValue(field);
    return value != null && !type.isInstance(value);
  }

  @Override
  public SockJSSocket exceptionHandler(Handler<Throwable> handler) {
    socket.exceptionHandler(handler == null ? null : err -> {
      if (!broken) {
        broken = true;
        failed.accept(this, err);
      }
    });
    return this;
  }

  @Override
  public SockJSSocket pause() {
    socket.pause();
    return this;
  }

  @Override
  public SockJSSocket resume() {
    socket.resume();
    return this;
  }

  @Override
  public SockJSSocket fetch(long amount) {
    socket.fetch(amount);
    return this;
  }

  @Override
  public SockJSSocket endHandler(Handler<Void> endHandler) {
    socket.endHandler(endHandler);
    return this;
  }

  @Override
  public SockJSSocket closeHandler(Handler<Void> closeHandler) {
    socket.closeHandler(closeHandler);
    return this;
  }

  @Override
  public Future<Void> write(Buffer data) {
    return socket.write(data);
  }

  @Override
  public Future<Void> write(String data) {
    return socket.write(data);
  }

  @Override
  public SockJSSocket setWriteQueueMaxSize(int maxSize) {
    socket.setWriteQueueMaxSize(maxSize);
    return this;
  }

  @Override
  public boolean writeQueueFull() {
    return socket.writeQueueFull();
  }

  @Override
  public SockJSSocket drainHandler(Handler<Void> handler) {
    socket.drainHandler(handler);
    return this;
  }

  @Override
  public String writeHandlerID() {
    return socket.writeHandlerID();
  }

  @Override
  public Future<Void> end() {
    return socket.end();
  }

  @Override
  public void close() {
    socket.close();
  }

  @Override
  public void close(int statusCode, String reason) {
    socket.close(statusCode, reason);
  }

  @Override
  public void closeAfterSessionExpired() {
    if (socket instanceof SockJSSocketBase base) {
      base.closeAfterSessionExpired();
    } else {
      socket.close();
    }
  }

  @Override
  public SocketAddress remoteAddress() {
    return socket.remoteAddress();
  }

  @Override
  public SocketAddress localAddress() {
    return socket.localAddress();
  }

  @Override
  public MultiMap headers() {
    return socket.headers();
  }

  @Override
  public String uri() {
    return socket.uri();
  }

  @Override
  public RoutingContext routingContext() {
    return socket.routingContext();
  }

  @Override
  public Session webSession() {
    return socket.webSession();
  }

  @Override
  public User webUser() {
    return socket.webUser();
  }
}
