package dev.conclave.e2e.cluster;

import dev.conclave.agent.ConnectionListener;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.Session;
import dev.conclave.agent.client.AgentClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;

/**
 * The agents of a storm: {@code n} agents of the agent SDK ({@link AgentClient}, with its own
 * reconnect policy, so that what the storm shows is what the SDK's agents do), each on its own
 * HTTP/2 connection (every SDK client has its own), the connections spread over loopback source
 * addresses {@code 127.0.x.y} ({@value #PER_SOURCE_ADDRESS} per address) so that ephemeral ports
 * are never the limit. Agent {@code i} is {@code storm-i}; it connects to node {@code i % nodes}
 * first and, when that node is lost, to one of the others (half the agents of a node list the
 * survivors in one order, half in the other, as a load balancer would spread them). Each agent
 * answers a message with done, echoing it ({@code "echo: <content>"}).
 *
 * <p>It records, per agent, the node it is registered with, when it last registered, and when it
 * last answered a message; and per request id, how often an agent was given it.
 */
final class StormFleet {

  static final int PER_SOURCE_ADDRESS = 200;
  static final String PREFIX = "storm-";

  private final Vertx vertx;
  private final List<Integer> ports;
  private final String token;
  private final int n;
  private final List<AgentClient> clients = new ArrayList<>();
  private final AtomicReferenceArray<String> servedBy;
  private final AtomicLongArray registeredAt;
  private final AtomicLongArray answeredAt;
  private final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
  private final AtomicInteger registrations = new AtomicInteger();
  private final AtomicInteger retries = new AtomicInteger();
  private final Map<String, AtomicInteger> retryCauses = new ConcurrentHashMap<>();
  private volatile String lostNode = "";
  private volatile IntConsumer onRegistered = i -> { };

  StormFleet(Vertx vertx, List<Integer> grpcPorts, String token, int n) {
    this.vertx = vertx;
    this.ports = List.copyOf(grpcPorts);
    this.token = token;
    this.n = n;
    this.servedBy = new AtomicReferenceArray<>(n);
    this.registeredAt = new AtomicLongArray(n);
    this.answeredAt = new AtomicLongArray(n);
    for (int i = 0; i < n; i++) {
      servedBy.set(i, "");
    }
  }

  static String id(int i) {
    return PREFIX + i;
  }

  /** The loopback address agent {@code i} connects from. */
  static String sourceAddress(int i) {
    int a = i / PER_SOURCE_ADDRESS;
    return "127.0." + (1 + a / 250) + "." + (1 + a % 250);
  }

  int size() {
    return n;
  }

  /** The node agent {@code i} connects to first. */
  int home(int i) {
    return i % ports.size();
  }

  /** Called (on the agent's context) each time agent {@code i} is welcomed. */
  void onRegistered(IntConsumer callback) {
    this.onRegistered = callback;
  }

  /**
   * Builds and starts every agent, at most {@code inFlight} registrations at a time (the first
   * start is not what is measured); completes when all are registered.
   */
  Future<Void> start(int inFlight) {
    for (int i = 0; i < n; i++) {
      clients.add(build(i));
    }
    AtomicInteger next = new AtomicInteger();
    List<Future<Void>> lanes = new ArrayList<>();
    for (int l = 0; l < Math.min(inFlight, n); l++) {
      lanes.add(lane(next));
    }
    return Future.all(lanes).mapEmpty();
  }

  private Future<Void> lane(AtomicInteger next) {
    int i = next.getAndIncrement();
    if (i >= n) {
      return Future.succeededFuture();
    }
    return clients.get(i).start().compose(s -> lane(next));
  }

  private AgentClient build(int i) {
    int home = home(i);
    List<Endpoint> order = new ArrayList<>();
    order.add(endpoint(home));
    int k = ports.size();
    boolean flip = (i / k) % 2 == 1;
    for (int j = 1; j < k; j++) {
      order.add(endpoint(Math.floorMod(home + (flip ? -j : j), k)));
    }
    return AgentClient.builder(vertx)
      .endpoints(order)
      .token(token)
      .agentId(id(i))
      .name(id(i))
      .httpClientOptions(new HttpClientOptions().setLocalAddress(sourceAddress(i)))
      .handler((message, response) -> {
        deliveries.computeIfAbsent(message.requestId(), k2 -> new AtomicInteger()).incrementAndGet();
        String on = servedBy.get(i);
        return response.done("echo: " + message.content()).onSuccess(v -> {
          if (!on.isEmpty() && !on.equals(lostNode)) {
            answeredAt.set(i, System.nanoTime());
          }
        });
      })
      .listener(new ConnectionListener() {
        @Override
        public void onRegistered(Session session, boolean reconnect) {
          servedBy.set(i, session.serverId());
          registeredAt.set(i, System.nanoTime());
          registrations.incrementAndGet();
          onRegistered.accept(i);
        }

        @Override
        public void onDisconnected(dev.conclave.agent.Disconnect disconnect) {
          servedBy.set(i, "");
        }

        @Override
        public void onRetryScheduled(Endpoint next, java.time.Duration delay, int attempt, Throwable lastFailure) {
          retries.incrementAndGet();
          String why = (attempt == 0 ? "session ended: " : "attempt failed: ") + cause(lastFailure);
          retryCauses.computeIfAbsent(why, k -> new AtomicInteger()).incrementAndGet();
        }
      })
      .build();
  }

  private Endpoint endpoint(int node) {
    return new Endpoint("127.0.0.1", ports.get(node));
  }

  /** From now on, answers given on a session with {@code node} do not count as serving (it is about to die). */
  void lose(String node) {
    lostNode = node;
  }

  /** Reconnection attempts scheduled so far. */
  int retries() {
    return retries.get();
  }

  /** Why attempts failed (or sessions ended), with how often. */
  Map<String, AtomicInteger> retryCauses() {
    return retryCauses;
  }

  private static String cause(Throwable t) {
    if (t == null) {
      return "the stream ended";
    }
    String m = String.valueOf(t.getMessage());
    m = m.replaceAll("storm-[0-9]+", "storm-N").replaceAll("127\\.0\\.[0-9.:]+", "127.0.x");
    return t.getClass().getSimpleName() + ": " + (m.length() > 120 ? m.substring(0, 120) : m);
  }

  /** The node agent {@code i} is registered with now ("" while it is not). */
  String servedBy(int i) {
    return servedBy.get(i);
  }

  /** When agent {@code i} was last welcomed ({@link System#nanoTime}), 0 if never. */
  long registeredAt(int i) {
    return registeredAt.get(i);
  }

  /** When agent {@code i} last answered a message, 0 if never. */
  long answeredAt(int i) {
    return answeredAt.get(i);
  }

  /** Welcomes so far, all agents together. */
  int registrations() {
    return registrations.get();
  }

  /** Request id → how many times an agent was given it. */
  Map<String, AtomicInteger> deliveries() {
    return deliveries;
  }

  /** Stops every agent (bounded: the caller closes Vert.x after it anyway). */
  Future<Void> stop() {
    List<Future<Void>> stops = new ArrayList<>();
    for (AgentClient c : clients) {
      stops.add(c.stop());
    }
    return Future.join(stops).mapEmpty();
  }
}
