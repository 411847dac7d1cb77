package dev.conclave.cli;

import io.vertx.core.http.WebSocket;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One session of the session protocol over the node's WebSocket (docs/sessions.md), used blocking:
 * configure it, submit ops, take the events in order. A socket the server closes arrives as a
 * {@code socket_closed} frame, so a reader never waits on a dead connection. While it is open it
 * sends a WebSocket ping every {@value #PING_MS} ms: a node closes an HTTP connection with no traffic
 * for {@code CONCLAVE_HTTP_IDLE_SECONDS} (60 s by default), and an agent may think, or wait in a paused
 * mailbox, for longer than that without an event.
 */
public final class LiveSession implements AutoCloseable {

  private static final String CONFIGURE_ID = "configure";
  static final long PING_MS = 5_000;

  private final Api api;
  private final WebSocket socket;
  private final BlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
  private final long pings;

  public LiveSession(Api api) {
    this.api = api;
    this.socket = api.session();
    socket.textMessageHandler(text -> {
      try {
        frames.add(new JsonObject(text));
      } catch (DecodeException e) {
        // the server sends JSON only; anything else is not an event
      }
    });
    this.pings = api.vertx().setPeriodic(PING_MS, t -> socket.writePing(io.vertx.core.buffer.Buffer.buffer()));
    socket.closeHandler(v -> frames.add(new JsonObject().put("msg", new JsonObject().put("type", "socket_closed")
      .put("status", socket.closeStatusCode() == null ? 0 : (int) socket.closeStatusCode())
      .put("reason", socket.closeReason() == null ? "" : socket.closeReason()))));
  }

  /**
   * Sends {@code configure_session} and waits for its answer: the {@code session_configured} message,
   * or a {@link CliFailure} with the server's {@code code} ({@code agent_not_found} …).
   */
  public JsonObject configure(JsonObject op) {
    submit(CONFIGURE_ID, op.copy().put("type", "configure_session"));
    while (true) {
      JsonObject frame = next(30_000);
      if (frame == null) {
        throw new CliFailure(ExitCodes.CANNOT_CONNECT, "no answer to configure_session within 30 s");
      }
      JsonObject msg = frame.getJsonObject("msg", new JsonObject());
      if (closed(msg)) {
        throw closedFailure(msg);
      }
      if (CONFIGURE_ID.equals(frame.getString("id"))) {
        if ("session_configured".equals(msg.getString("type"))) {
          return msg;
        }
        throw errorFailure(msg);
      }
    }
  }

  public void submit(String id, JsonObject op) {
    api.await(socket.writeTextMessage(new JsonObject().put("id", id).put("op", op).encode()));
  }

  /** The next frame, or null after {@code ms} without one. */
  public JsonObject next(long ms) {
    try {
      return frames.poll(ms, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliFailure(ExitCodes.CANCELLED, "interrupted");
    }
  }

  public static boolean closed(JsonObject msg) {
    return "socket_closed".equals(msg.getString("type"));
  }

  /** A closed socket: 4001 (token revoked) and 4003 (access revoked) are auth failures. */
  public static CliFailure closedFailure(JsonObject msg) {
    int status = msg.getInteger("status", 0);
    int exit = status == 4001 || status == 4003 ? ExitCodes.AUTH : ExitCodes.CANNOT_CONNECT;
    return new CliFailure(exit, "the node closed the session (" + status + " " + msg.getString("reason", "") + ")");
  }

  /** An {@code error} event with a code: access refusals are auth failures, the rest the server's. */
  public static CliFailure errorFailure(JsonObject msg) {
    String code = msg.getString("code", "error");
    int exit = code.contains("denied") || code.contains("forbidden") ? ExitCodes.AUTH : ExitCodes.SERVER_ERROR;
    return new CliFailure(exit, code + ": " + msg.getString("message", msg.encode()).replaceAll("[\\r\\n]+", " "));
  }

  @Override
  public void close() {
    api.vertx().cancelTimer(pings);
    try {
      socket.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // gone already
    }
  }
}
