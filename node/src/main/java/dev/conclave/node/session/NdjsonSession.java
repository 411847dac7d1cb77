package dev.conclave.node.session;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.io.PrintStream;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The session protocol's NDJSON transport: one submission per stdin line goes to
 * {@code /api/v1/sessions} as a text frame; every event frame is printed as one stdout line. The
 * client remembers the session id and the last {@code event_id}; when the connection drops it
 * reconnects (to the next node in its list) and resumes, so the output has no gap and no duplicate.
 * When no node takes the session back it calls its {@code onGiveUp}, once. Blocking by design: it is
 * a CLI.
 */
final class NdjsonSession {

  static final int RECONNECT_ATTEMPTS = 20;
  /** The submission id of the client's own configure_session. */
  static final String CONFIGURE_ID = "configure";

  private final Vertx vertx;
  private final WebSocketClient client;
  private final List<URI> nodes;
  private final String token;
  private final JsonObject configure;
  private final PrintStream out;
  private final Runnable onGiveUp;
  private final Object lock = new Object();
  private WebSocket ws;
  private int node;
  private String sessionId;
  private String lastEventId;
  private volatile boolean finishing;
  private volatile long lastFrameAt = System.nanoTime();
  /** The answer to the latest configure submission ({@code session_configured} or {@code error}). */
  private volatile java.util.concurrent.CompletableFuture<JsonObject> configured = new java.util.concurrent.CompletableFuture<>();
  private final java.util.Set<URI> reported = new java.util.HashSet<>();
  /** The ids of this client's user_input submissions whose task has not ended yet (task_complete or error). */
  private final java.util.Set<String> openTasks = java.util.concurrent.ConcurrentHashMap.newKeySet();

  NdjsonSession(Vertx vertx, List<URI> nodes, String token, JsonObject configure, PrintStream out, Runnable onGiveUp) {
    this(vertx, nodes, token, configure, out, onGiveUp, java.util.Optional.empty());
  }

  /** With {@code caFile}, {@code https://} nodes are trusted by the CA certificates in it instead of the system's. */
  NdjsonSession(Vertx vertx, List<URI> nodes, String token, JsonObject configure, PrintStream out, Runnable onGiveUp,
                java.util.Optional<java.nio.file.Path> caFile) {
    this.vertx = vertx;
    io.vertx.core.http.WebSocketClientOptions options = new io.vertx.core.http.WebSocketClientOptions().setVerifyHost(true);
    caFile.ifPresent(ca -> options.setTrustOptions(new io.vertx.core.net.PemTrustOptions().addCertPath(ca.toString())));
    this.client = vertx.createWebSocketClient(options);
    this.nodes = nodes;
    this.token = token;
    this.configure = configure;
    this.out = out;
    this.onGiveUp = onGiveUp;
  }

  /** Connects (trying each node) and configures the session; false when no node took it. */
  boolean connect() {
    for (int attempt = 0; attempt < RECONNECT_ATTEMPTS && !finishing; attempt++) {
      URI uri = nodes.get(node % nodes.size());
      try {
        WebSocket socket = open(uri).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        synchronized (lock) {
          ws = socket;
        }
        configured = new java.util.concurrent.CompletableFuture<>();
        JsonObject op = configure.copy();
        if (sessionId != null) {
          op.put("session_id", sessionId);
          if (lastEventId != null) {
            op.put("last_event_id", lastEventId);
          }
        }
        write(new JsonObject().put("id", CONFIGURE_ID).put("op", op).encode());
        return true;
      } catch (Exception e) {
        // one line per node, not one per attempt: the retries go on quietly
        if (reported.add(uri)) {
          System.err.println("conclave session: cannot reach " + uri + " (" + message(e) + "); retrying"
            + (nodes.size() > 1 ? " with the next node" : ""));
        }
        node++;
        sleep(500);
      }
    }
    return false;
  }

  /**
   * Waits for the answer to the configure submission: the {@code msg} of its {@code session_configured}
   * or {@code error} event; an error event when none came within {@code ms}.
   */
  JsonObject awaitConfigured(long ms) {
    try {
      return configured.get(ms, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      return new JsonObject().put("type", "error").put("code", "no_answer").put("message", "no answer to configure_session within " + ms + " ms");
    } catch (Exception e) {
      return new JsonObject().put("type", "error").put("code", "no_answer").put("message", message(e));
    }
  }

  private static String message(Throwable e) {
    Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
    return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
  }

  private Future<WebSocket> open(URI uri) {
    boolean tls = "https".equals(uri.getScheme()) || "wss".equals(uri.getScheme());
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(uri.getHost())
      .setPort(uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80).setSsl(tls).setURI("/api/v1/sessions")
      .addHeader("authorization", "Bearer " + token);
    return client.connect(options).onSuccess(socket -> {
      socket.textMessageHandler(this::onFrame);
      socket.closeHandler(v -> onClosed(socket));
    });
  }

  private void onFrame(String text) {
    lastFrameAt = System.nanoTime();
    try {
      JsonObject frame = new JsonObject(text);
      JsonObject msg = frame.getJsonObject("msg", new JsonObject());
      if ("session_configured".equals(msg.getString("type"))) {
        sessionId = msg.getString("session_id");
        if (lastEventId == null && msg.getString("last_event_id") != null) {
          lastEventId = msg.getString("last_event_id");
        }
      }
      if (frame.getString("event_id") != null) {
        lastEventId = frame.getString("event_id");
      }
      if ("task_complete".equals(msg.getString("type")) || "error".equals(msg.getString("type"))) {
        openTasks.remove(frame.getString("id", ""));
      }
      if (CONFIGURE_ID.equals(frame.getString("id"))) {
        configured.complete(msg);
        if ("error".equals(msg.getString("type")) && sessionId != null) {
          // a resume refused (the agent or the access is gone): nothing can follow
          System.err.println("conclave session: the session could not be resumed: " + msg.getString("code", "error") + ": "
            + msg.getString("message", ""));
          onGiveUp.run();
        }
      }
    } catch (DecodeException | ClassCastException e) {
      // printed as it came; the server only sends JSON
    }
    synchronized (out) {
      out.println(text);
      out.flush();
    }
  }

  private void onClosed(WebSocket socket) {
    synchronized (lock) {
      if (ws != socket) {
        return;
      }
      ws = null;
    }
    if (finishing) {
      return;
    }
    System.err.println("conclave session: connection closed (" + socket.closeStatusCode() + " " + socket.closeReason() + "); resuming");
    node++;
    vertx.executeBlocking(() -> {
      if (!connect() && !finishing) {
        System.err.println("conclave session: no node took the session back; giving up");
        onGiveUp.run();
      }
      return null;
    });
  }

  /** Sends one stdin line; waits while reconnecting. */
  void submit(String line) {
    try {
      JsonObject submission = new JsonObject(line);
      JsonObject op = submission.getJsonObject("op");
      if (op != null && "user_input".equals(op.getString("type")) && submission.getString("id") != null) {
        openTasks.add(submission.getString("id"));
      }
    } catch (DecodeException | ClassCastException e) {
      // sent as it is: the server answers with an error
    }
    while (!write(line)) {
      sleep(100);
    }
  }

  private boolean write(String text) {
    WebSocket socket;
    synchronized (lock) {
      socket = ws;
    }
    if (socket == null) {
      return false;
    }
    try {
      socket.writeTextMessage(text).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * After stdin ended: keeps printing until every task this client's submissions started has ended
   * ({@code task_complete} or {@code error}), however long that takes, and then the server has been
   * quiet for {@code lingerMs}; then closes.
   */
  void finish(long lingerMs) {
    while (!openTasks.isEmpty() || System.nanoTime() - lastFrameAt < lingerMs * 1_000_000L) {
      sleep(50);
    }
    close();
  }

  /** Closes the connection now; the session does not reconnect after this. */
  void close() {
    finishing = true;
    WebSocket socket;
    synchronized (lock) {
      socket = ws;
    }
    if (socket != null) {
      try {
        socket.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
      } catch (Exception ignored) {
        // gone already
      }
    }
    client.close();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
