package dev.conclave.e2e.cluster;

import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AgentInfo;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.Event;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.ListAgentsRequest;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Three real node processes on 127.0.0.1, one Hazelcast cluster, one PostgreSQL. Assertions are
 * only on what clients and agents see.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIT {

  /** The bound of each cluster step this test and its neighbours wait for. */
  static final java.time.Duration STEP = java.time.Duration.ofSeconds(60);

  static Cluster cluster;
  private static Vertx vertx;
  private static GrpcClient grpc;
  private static String admin;

  @BeforeAll
  static void start(org.junit.jupiter.api.TestInfo test) throws Exception {
    if (test.getTestClass().orElseThrow() != ClusterIT.class) {
      // a subclass starts its own cluster (ClusterEventBusTlsIT: its event bus over TLS). JUnit runs this
      // method for it too: a same-named static method in the subclass did not hide it, and the plain
      // cluster it started was left running (three node processes outlived the build)
      return;
    }
    startWith(new Cluster(3));
  }

  /** Starts {@code started}'s nodes and the clients the tests share (ClusterEventBusTlsIT: with event-bus TLS). */
  static void startWith(Cluster started) throws Exception {
    cluster = started;
    cluster.startAll();
    admin = cluster.adminToken();
    vertx = Vertx.vertx();
    grpc = GrpcClient.client(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      grpc.close();
      vertx.close().await(10, TimeUnit.SECONDS);
    } finally {
      cluster.close();
    }
  }

  private static GrpcCalls calls(int node) {
    return new GrpcCalls(vertx, cluster.member(node).grpc());
  }

  private static ResilientAgent agent(String id, String token, int firstNode, long delayMs) {
    ResilientAgent a = new ResilientAgent(vertx, grpc, cluster.grpcPorts(), cluster.member(firstNode).grpc(), token, id, delayMs);
    await(a.start(), STEP);
    return a;
  }

  private static BlockingQueue<ClientStreamEvent> follow(int node, String key, String since) {
    BlockingQueue<ClientStreamEvent> events = new LinkedBlockingQueue<>();
    var req = await(grpc.request(SocketAddress.inetSocketAddress(cluster.member(node).grpc(), "127.0.0.1"), ClientServiceGrpcClient.StreamEvents), STEP);
    req.headers().set("authorization", "Bearer " + admin);
    req.end(StreamEventsRequest.newBuilder().setConversationKey(key).setSinceEventId(since).build());
    await(req.response(), STEP).handler(events::add);
    return events;
  }

  private static List<ClientStreamEvent> untilTerminal(BlockingQueue<ClientStreamEvent> q) throws InterruptedException {
    List<ClientStreamEvent> seen = new ArrayList<>();
    while (true) {
      ClientStreamEvent e = q.poll(20, TimeUnit.SECONDS);
      assertThat(e).as("events so far: " + seen).isNotNull();
      seen.add(e);
      if (e.hasDone() || e.hasError()) {
        return seen;
      }
    }
  }

  private static List<AgentInfo> listAgents(int node) {
    try (GrpcCalls c = calls(node)) {
      return c.unary(ClientServiceGrpcClient.ListAgents, ListAgentsRequest.getDefaultInstance(), "Bearer " + admin).response().orElseThrow().getAgentsList();
    }
  }

  /** Terminal ledger events per request id of a conversation. */
  private static Map<String, List<Event>> terminals(GrpcCalls c, String key) {
    Map<String, List<Event>> out = new ConcurrentHashMap<>();
    c.unary(ClientServiceGrpcClient.GetEvents, GetEventsRequest.newBuilder().setConversationKey(key).setLimit(500).build(), "Bearer " + admin)
      .response().orElseThrow().getEventsList().stream()
      .filter(e -> List.of("done", "error", "cancelled").contains(e.getRawTransport()))
      .forEach(e -> out.computeIfAbsent(e.getRawPayloadRef().substring("request/".length()), k -> new ArrayList<>()).add(e));
    return out;
  }

  @Test
  @Order(1)
  void anAgentOnOneNodeAClientOnAnotherAndASubscriberOnAThird() throws Exception {
    ResilientAgent a = agent("span-1", cluster.agentToken("span"), 0, 10);
    try {
      assertThat(a.servedBy()).isEqualTo("node-1");
      BlockingQueue<ClientStreamEvent> onNode3 = follow(2, "span-1", "0");
      BlockingQueue<ClientStreamEvent> onNode2 = follow(1, "span-1", "0");
      Thread.sleep(300);
      String id;
      try (GrpcCalls node2 = calls(1)) {
        id = node2.unary(ClientServiceGrpcClient.SendMessage, dev.conclave.proto.coven.ClientSendMessageRequest.newBuilder()
          .setConversationKey("span-1").setContent("across the cluster").setIdempotencyKey("span-1").build(), "Bearer " + admin)
          .response().orElseThrow().getMessageId();
      }
      for (BlockingQueue<ClientStreamEvent> q : List.of(onNode3, onNode2)) {
        List<ClientStreamEvent> events = untilTerminal(q);
        assertThat(events).extracting(e -> e.getPayloadCase().name()).containsExactly("EVENT", "TEXT", "DONE");
        assertThat(events.get(1).getText().getContent()).isEqualTo("answer from span-1");
      }
      assertThat(a.received()).containsOnlyKeys(id);
      List<AgentInfo> one = listAgents(0);
      assertThat(one).anySatisfy(x -> {
        assertThat(x.getId()).isEqualTo("span-1");
        assertThat(x.getConnected()).isTrue();
      });
      assertThat(listAgents(1)).isEqualTo(one);
      assertThat(listAgents(2)).isEqualTo(one);
    } finally {
      a.stop();
    }
  }

  @Test
  @Order(2)
  void aRollingRestartUnderSteadyLoadFailsNoClientCall() throws Exception {
    String token = cluster.agentToken("rolling");
    List<ResilientAgent> agents = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      agents.add(agent("roll-" + i, token, i % 3, 50));
    }
    List<ResilientClient> clients = List.of(
      new ResilientClient(vertx, grpc, cluster.grpcPorts(), admin, 0),
      new ResilientClient(vertx, grpc, cluster.grpcPorts(), admin, 1),
      new ResilientClient(vertx, grpc, cluster.grpcPorts(), admin, 2));
    List<String> sent = new CopyOnWriteArrayList<>();
    Map<String, String> conversationOf = new ConcurrentHashMap<>();
    AtomicInteger failed = new AtomicInteger();
    AtomicBoolean loading = new AtomicBoolean(true);
    AtomicInteger seq = new AtomicInteger();
    List<Future<?>> inProgress = new CopyOnWriteArrayList<>();
    long timer = vertx.setPeriodic(100, t -> {
      if (!loading.get()) {
        return;
      }
      int n = seq.getAndIncrement();
      String key = "roll-" + (n % agents.size());
      inProgress.add(clients.get(n % clients.size()).send(key, "work " + n, "roll-" + n)
        .onSuccess(r -> {
          sent.add(r.getMessageId());
          conversationOf.put(r.getMessageId(), key);
        })
        .onFailure(err -> failed.incrementAndGet()));
    });
    for (int i = 0; i < cluster.size(); i++) {
      Thread.sleep(2000);
      assertThat(cluster.node(i).terminate(Duration.ofSeconds(30))).as("node-" + (i + 1) + " exit code").isZero();
      cluster.start(i);
    }
    Thread.sleep(2000);
    loading.set(false);
    vertx.cancelTimer(timer);
    for (Future<?> f : inProgress) {
      try {
        f.await(60, TimeUnit.SECONDS);
      } catch (Exception ignored) {
        // counted in failed
      }
    }
    assertThat(failed.get()).as("client calls that failed even after retrying another node").isZero();
    assertThat(sent).hasSizeGreaterThan(50);

    try (GrpcCalls c = calls(0)) {
      Map<String, List<Event>> ended = new ConcurrentHashMap<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (System.nanoTime() < deadline) {
        ended.clear();
        for (ResilientAgent a : agents) {
          ended.putAll(terminals(c, a.received().isEmpty() ? "roll-x" : conversationOf.getOrDefault(a.received().keySet().iterator().next(), "roll-x")));
        }
        for (int i = 0; i < agents.size(); i++) {
          ended.putAll(terminals(c, "roll-" + i));
        }
        if (sent.stream().allMatch(ended::containsKey)) {
          break;
        }
        Thread.sleep(500);
      }
      assertThat(sent).allSatisfy(id -> assertThat(ended.get(id)).as("terminal events of " + id).hasSize(1));
      long errors = sent.stream().filter(id -> !ended.get(id).get(0).getRawTransport().equals("done")).count();
      System.out.println("rolling restart: requests=" + sent.size() + " errors=" + errors + " client retries="
        + clients.stream().mapToInt(ResilientClient::retries).sum());
    }
    for (ResilientAgent a : agents) {
      assertThat(a.received().values()).allSatisfy(n -> assertThat(n.get()).as("deliveries of one request").isEqualTo(1));
      a.stop();
    }
  }

  @Test
  @Order(3)
  void killingTheNodeThatHolds50AgentsLosesNothing() throws Exception {
    String token = cluster.agentToken("fleet");
    List<ResilientAgent> agents = new ArrayList<>();
    List<Future<Void>> starting = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      // the slow job is held until its node is killed (it ends there as 'agent disconnected'), so the
      // next job is still queued at the kill, whatever the machine's load: a fixed 4 s delay let a
      // loaded run answer the first and take the second on the node about to die
      ResilientAgent a = new ResilientAgent(vertx, grpc, cluster.grpcPorts(), cluster.member(0).grpc(), token, "fleet-" + i, 200)
        .answerDelay(content -> content.equals("slow job") ? TimeUnit.MINUTES.toMillis(10) : 200);
      agents.add(a);
      starting.add(a.start());
    }
    starting.forEach(f -> await(f, STEP));
    assertThat(agents).allSatisfy(a -> assertThat(a.servedBy()).isEqualTo("node-1"));

    ResilientClient client = new ResilientClient(vertx, grpc, cluster.grpcPorts(), admin, 1);
    List<String> inFlight = new ArrayList<>();
    List<String> queued = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      inFlight.add(await(client.send("fleet-" + i, "slow job", "fleet-" + i + "-a"), STEP).getMessageId());
      queued.add(await(client.send("fleet-" + i, "next job", "fleet-" + i + "-b"), STEP).getMessageId());
    }
    for (int i = 0; i < 50; i++) {
      String id = inFlight.get(i);
      ResilientAgent a = agents.get(i);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!a.received().containsKey(id) && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertThat(a.received()).containsKey(id);
    }

    long killedAt = System.nanoTime();
    cluster.node(0).kill();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (agents.stream().anyMatch(a -> a.servedBy().equals("node-1")) && System.nanoTime() < until) {
      Thread.sleep(50);
    }
    long failoverMs = (System.nanoTime() - killedAt) / 1_000_000;
    assertThat(agents).allSatisfy(a -> assertThat(a.servedBy()).isIn("node-2", "node-3"));

    try (GrpcCalls c = calls(1)) {
      Map<String, List<Event>> ended = new ConcurrentHashMap<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (System.nanoTime() < deadline) {
        for (int i = 0; i < 50; i++) {
          ended.putAll(terminals(c, "fleet-" + i));
        }
        if (inFlight.stream().allMatch(ended::containsKey) && queued.stream().allMatch(ended::containsKey)) {
          break;
        }
        Thread.sleep(500);
      }
      for (String id : inFlight) {
        assertThat(ended.get(id)).as("terminal of in-flight " + id).hasSize(1);
        Event e = ended.get(id).get(0);
        // held by the agent when its node died: ended, never delivered twice
        assertThat(e.getRawTransport()).as("in-flight " + id).isEqualTo("error");
        assertThat(e.getText()).isEqualTo("agent disconnected");
      }
      for (String id : queued) {
        assertThat(ended.get(id)).as("terminal of queued " + id).hasSize(1);
        assertThat(ended.get(id).get(0).getRawTransport()).as("queued work is redelivered and done").isEqualTo("done");
      }
    }
    for (ResilientAgent a : agents) {
      assertThat(a.received().values()).allSatisfy(n -> assertThat(n.get()).as("deliveries of one request").isEqualTo(1));
    }
    List<AgentInfo> listed = listAgents(1);
    assertThat(listed.stream().filter(x -> x.getId().startsWith("fleet-")).filter(AgentInfo::getConnected).count()).isEqualTo(50);
    assertThat(listAgents(2)).isEqualTo(listed);
    System.out.println("failover: 50 agents serving again " + failoverMs + " ms after kill -9");
    agents.forEach(ResilientAgent::stop);
  }
}
