package dev.conclave.e2e.faults;

import dev.conclave.e2e.cluster.ResilientAgent;
import dev.conclave.e2e.cluster.ResilientClient;
import dev.conclave.proto.coven.ClientSendMessageResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcStatus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static dev.conclave.platform.testing.Await.await;

/**
 * Steady gateway traffic for a fault test, every step recorded in a {@link History}
 * ({@link GatewayOps}): {@code agents} {@link ResilientAgent}s, each answering a request with a text
 * chunk naming it and done; clients sending {@code SendMessage} to the agents' conversations at a
 * total rate, each with its own idempotency key, retried on another endpoint with the same key
 * ({@link ResilientClient}); and followers, one {@link EventFollower} per conversation, each
 * resuming from the last event it saw. {@link #stop} ends sending, lets what is in flight finish
 * (bounded) and stops agents and followers.
 */
public final class GatewayLoad {

  /**
   * @param prefix agent ids are {@code <prefix>-<i>} (also their conversation keys), idempotency
   *     keys {@code <prefix>-<run>-<n>}
   */
  public record Settings(int agents, double messagesPerSecond, long answerDelayMs, int clients, int followers, String prefix) {

    /** {@code agents} agents answering after {@code answerDelayMs}, {@code rate} messages/s in all, 4 clients, 4 followers. */
    public static Settings of(int agents, double rate, long answerDelayMs) {
      return new Settings(agents, rate, answerDelayMs, 4, 4, "load");
    }

    public Settings withPrefix(String p) {
      return new Settings(agents, messagesPerSecond, answerDelayMs, clients, followers, p);
    }

    public Settings withClients(int n, int followerProcesses) {
      return new Settings(agents, messagesPerSecond, answerDelayMs, n, followerProcesses, prefix);
    }
  }

  private static final long TICK_MS = 20;
  /** Statuses that mean the gateway refused the message: certainly not accepted. */
  private static final Set<GrpcStatus> DEFINITE = Set.of(GrpcStatus.INVALID_ARGUMENT, GrpcStatus.NOT_FOUND, GrpcStatus.PERMISSION_DENIED,
    GrpcStatus.UNAUTHENTICATED, GrpcStatus.ALREADY_EXISTS, GrpcStatus.FAILED_PRECONDITION, GrpcStatus.OUT_OF_RANGE,
    GrpcStatus.UNIMPLEMENTED);

  private final Vertx vertx;
  private final History history;
  private final Settings settings;
  private final List<ResilientAgent> agents = new ArrayList<>();
  private final List<ResilientClient> clients = new ArrayList<>();
  private final List<EventFollower> followers = new ArrayList<>();
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final Map<String, Set<String>> acceptedByConversation = new ConcurrentHashMap<>();
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong unsure = new AtomicLong();
  private volatile boolean sending;
  private long timer = -1;
  private double due;

  private GatewayLoad(Vertx vertx, History history, Settings settings) {
    this.vertx = vertx;
    this.history = history;
    this.settings = settings;
  }

  /**
   * Starts the agents (waits until each has registered once, so its conversation exists), then the
   * followers, then sending. {@code adminToken} sends and follows (it sees every conversation);
   * {@code agentToken} is one agent principal's token, shared by all agents.
   */
  public static GatewayLoad start(Vertx vertx, GrpcClient grpc, List<SocketAddress> endpoints, String adminToken, String agentToken,
                                  Settings settings, History history) {
    GatewayLoad load = new GatewayLoad(vertx, history, settings);
    List<Future<Void>> registered = new ArrayList<>();
    for (int i = 0; i < settings.agents(); i++) {
      String id = settings.prefix() + "-" + i;
      ResilientAgent agent = ResilientAgent.at(vertx, grpc, endpoints, i % endpoints.size(), agentToken, id, settings.answerDelayMs())
        .answerWith(request -> GatewayOps.answerText(id, request))
        .observe(load.recorder("agent-" + i, id));
      load.agents.add(agent);
      registered.add(agent.start());
    }
    await(Future.all(registered), Duration.ofSeconds(60), "load generator");
    for (int i = 0; i < settings.agents(); i++) {
      String key = load.agents.get(i).agentId();
      EventFollower f = new EventFollower(vertx, grpc, endpoints, i + 1, adminToken, key, "follower-" + (i % settings.followers()), history);
      load.followers.add(f);
      f.start();
    }
    for (int i = 0; i < settings.clients(); i++) {
      load.clients.add(new ResilientClient(vertx, grpc, endpoints, i, adminToken));
    }
    load.sending = true;
    load.timer = vertx.setPeriodic(TICK_MS, t -> load.tick());
    return load;
  }

  private ResilientAgent.Observer recorder(String process, String agentId) {
    return new ResilientAgent.Observer() {
      @Override
      public void connected(int session, String server) {
        history.observe(process, GatewayOps.CONNECTED, "", Map.of(GatewayOps.AGENT, agentId, GatewayOps.SESSION, Integer.toString(session),
          GatewayOps.SERVER, server));
      }

      @Override
      public void delivered(int session, String requestId, int inFlightBefore) {
        history.observe(process, GatewayOps.DELIVER, requestId, Map.of(GatewayOps.AGENT, agentId, GatewayOps.SESSION, Integer.toString(session),
          GatewayOps.IN_FLIGHT, Integer.toString(inFlightBefore)));
      }

      @Override
      public void answered(int session, String requestId) {
        history.observe(process, GatewayOps.ANSWER, requestId, Map.of(GatewayOps.AGENT, agentId, GatewayOps.SESSION, Integer.toString(session)));
      }

      @Override
      public void lost(int session) {
        history.observe(process, GatewayOps.LOST, "", Map.of(GatewayOps.AGENT, agentId, GatewayOps.SESSION, Integer.toString(session)));
      }
    };
  }

  private void tick() {
    if (!sending) {
      return;
    }
    due += settings.messagesPerSecond() * TICK_MS / 1000.0;
    while (due >= 1) {
      due--;
      send(sent.getAndIncrement());
    }
  }

  private void send(long n) {
    int c = (int) (n % clients.size());
    String conversation = agents.get((int) (n % agents.size())).agentId();
    String key = settings.prefix() + "-" + run + "-" + n;
    Op invoke = history.invoke("client-" + c, GatewayOps.SEND, key, Map.of(GatewayOps.CONVERSATION, conversation));
    pending.incrementAndGet();
    clients.get(c).send(conversation, "work " + n, key).onComplete(ar -> {
      try {
        if (ar.succeeded()) {
          ClientSendMessageResponse r = ar.result();
          history.ok(invoke, Map.of(GatewayOps.MESSAGE_ID, r.getMessageId(), GatewayOps.STATUS, r.getStatus()));
          accepted.incrementAndGet();
          if (!r.getMessageId().isEmpty()) {
            acceptedByConversation.computeIfAbsent(conversation, k -> ConcurrentHashMap.newKeySet()).add(r.getMessageId());
          }
        } else if (ar.cause() instanceof InvalidStatusException ise && DEFINITE.contains(ise.actualStatus())) {
          history.fail(invoke, Map.of(GatewayOps.ERROR, String.valueOf(ar.cause().getMessage())));
        } else {
          unsure.incrementAndGet();
          history.info(invoke, Map.of(GatewayOps.ERROR, String.valueOf(ar.cause())));
        }
      } finally {
        pending.decrementAndGet();
      }
    });
  }

  /**
   * Stops sending; waits (at most {@code settle} in all) for the sends in flight to be answered and
   * for the followers to see every accepted message end; then stops followers and agents. Returns
   * whether everything settled in time (the checker says what did not).
   */
  public boolean stop(Duration settle) {
    sending = false;
    vertx.cancelTimer(timer);
    long deadline = System.nanoTime() + settle.toNanos();
    boolean settled = false;
    while (System.nanoTime() < deadline) {
      if (pending.get() == 0 && followers.stream().allMatch(f -> f.settled(acceptedByConversation.getOrDefault(f.conversation(), Set.of())))) {
        settled = true;
        break;
      }
      sleep(100);
    }
    if (!settled) {
      System.out.println("load: not settled after " + settle.toSeconds() + " s: " + pending.get() + " sends still pending; followers behind: "
        + followers.stream().filter(f -> !f.settled(acceptedByConversation.getOrDefault(f.conversation(), Set.of())))
          .map(f -> f.lag(acceptedByConversation.getOrDefault(f.conversation(), Set.of()))).collect(java.util.stream.Collectors.joining("; ")));
    }
    followers.forEach(EventFollower::stop);
    agents.forEach(ResilientAgent::stop);
    sleep(200);
    return settled;
  }

  /** The agents' conversation keys (their ids). */
  public List<String> conversations() {
    return agents.stream().map(ResilientAgent::agentId).toList();
  }

  public List<ResilientAgent> agents() {
    return List.copyOf(agents);
  }

  /** Messages sent, accepted (ok), and whose outcome is unknown (info), so far. */
  public Map<String, Long> counts() {
    Map<String, Long> out = new HashMap<>();
    out.put("sent", sent.get());
    out.put("accepted", accepted.get());
    out.put("unsure", unsure.get());
    out.put("clientRetries", (long) clients.stream().mapToInt(ResilientClient::retries).sum());
    return out;
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
