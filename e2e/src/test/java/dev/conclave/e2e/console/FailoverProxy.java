package dev.conclave.e2e.console;

import dev.conclave.platform.testing.FreePorts;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.conclave.platform.testing.Await.await;

/**
 * What a Kubernetes Service is to the browser: one origin (127.0.0.1 and a port of its own) in
 * front of the nodes. Each TCP connection (HTTP, WebSocket, anything) is forwarded byte for byte to
 * the first backend that accepts it, in order: node 2, then node 1 once node 2 refuses. While
 * {@link #blackout(boolean) blacked out} it accepts connections and closes them at once, as a
 * Service does in the seconds before it drops a dead pod's endpoint.
 */
final class FailoverProxy implements AutoCloseable {

  private final Vertx vertx = Vertx.vertx();
  private final List<Integer> backends;
  private final NetClient client;
  private final NetServer server;
  private final int port;
  private final AtomicBoolean blackout = new AtomicBoolean();
  private final Map<Integer, AtomicInteger> connections = new ConcurrentHashMap<>();

  /** Listens on 127.0.0.1; forwards to {@code backends} (HTTP ports), the first that accepts. */
  FailoverProxy(List<Integer> backends) {
    this.backends = List.copyOf(backends);
    this.client = vertx.createNetClient(new NetClientOptions().setConnectTimeout(2000));
    this.port = FreePorts.next();
    this.server = vertx.createNetServer().connectHandler(this::accept);
    await(server.listen(port, "127.0.0.1"), java.time.Duration.ofSeconds(10), "the failover proxy start");
  }

  /** The browser's origin. */
  String url() {
    return "http://127.0.0.1:" + port + "/";
  }

  /** While on, every new connection is closed as soon as it is accepted. */
  void blackout(boolean on) {
    blackout.set(on);
  }

  /** How many connections went to the backend on this port so far. */
  int connectionsTo(int backendPort) {
    AtomicInteger n = connections.get(backendPort);
    return n == null ? 0 : n.get();
  }

  private void accept(NetSocket browser) {
    if (blackout.get()) {
      browser.close();
      return;
    }
    browser.pause();
    connect(0).onComplete(ar -> {
      if (ar.failed()) {
        browser.close();
        return;
      }
      NetSocket node = ar.result();
      connections.computeIfAbsent(node.remoteAddress().port(), p -> new AtomicInteger()).incrementAndGet();
      // a node killed with SIGKILL resets its sockets: the browser's side closes with it (and the
      // pipes end the other side when one side ends or fails)
      browser.closeHandler(v -> node.close());
      node.closeHandler(v -> browser.close());
      browser.pipeTo(node);
      node.pipeTo(browser);
    });
  }

  private Future<NetSocket> connect(int i) {
    return client.connect(backends.get(i), "127.0.0.1")
      .recover(e -> i + 1 < backends.size() ? connect(i + 1) : Future.failedFuture(e));
  }

  @Override
  public void close() {
    try {
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // best effort: the JVM ends soon after
    }
  }
}
