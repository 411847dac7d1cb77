package dev.conclave.gateway.lifecycle;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.HttpJson;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Agent lifecycle states drive routing: pause holds work, resume delivers it, retire drains and shuts down. */
class LifecycleTest {

  private static GatewayFixture gw;
  private static Clients admin;
  private static HttpJson http;
  private static final BlockingQueue<JsonObject> BUS = new LinkedBlockingQueue<>();

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    admin = gw.admin();
    http = new HttpJson(gw.vertx(), gw.node().httpPort());
    gw.node().runtime().context().vertx().eventBus().<JsonObject>consumer(Addresses.LIFECYCLE_EVENTS, m -> BUS.add(m.body()));
  }

  @AfterAll
  static void stop() {
    http.close();
    gw.close();
  }

  private static HttpJson.Answer transition(String agentId, String to) {
    return http.post(gw.node().adminToken(), "/api/v1/gateway/agents/" + agentId + "/lifecycle", new JsonObject().put("to", to).put("reason", "test"));
  }

  private static JsonObject state(String agentId) {
    JsonArray agents = http.get(gw.node().adminToken(), "/api/v1/gateway/registry/agents?parentId=&lifecycle=").body().getJsonArray("agents");
    return agents.stream().map(JsonObject.class::cast).filter(a -> a.getString("agentId").equals(agentId)).findFirst().orElseThrow();
  }

  @Test
  void aRegisteredAgentBecomesRunningWhenItConnectsAndEveryTransitionIsPublishedAndLedgered() throws Exception {
    BUS.clear();
    String token = gw.agentToken("life-1");
    java.util.UUID principal = GatewayFixture.await(gw.node().runtime().context().tokens().authenticate(token)).principalId();
    assertThat(http.post(gw.node().adminToken(), "/api/v1/gateway/registry/agents", new JsonObject().put("agentId", "life-1")
      .put("principalId", principal.toString())).status()).isEqualTo(201);
    assertThat(state("life-1").getString("lifecycle")).isEqualTo("Initialized");
    try (RawAgent agent = gw.connect("life-1", token)) {
      assertThat(state("life-1").getString("lifecycle")).isEqualTo("Running");
      assertThat(state("life-1").getString("status")).isEqualTo("connected");
      JsonObject started = next("life-1", "lifecycle_event");
      assertThat(started.getString("from")).isEqualTo("Initialized");
      assertThat(started.getString("to")).isEqualTo("Running");
      assertThat(started.getString("event")).isEqualTo("Started");
      JsonObject status = next("life-1", "agent_status_changed");
      assertThat(status.getString("status")).isEqualTo("Running");

      HttpJson.Answer paused = transition("life-1", "paused");
      assertThat(paused.status()).isEqualTo(200);
      assertThat(paused.body().getString("agentId")).isEqualTo("life-1");
      assertThat(next("life-1", "lifecycle_event").getString("event")).isEqualTo("Paused");
      assertThat(next("life-1", "agent_status_changed").getString("lifecycle")).isEqualTo("paused");

      HttpJson.Answer ledger = http.get(gw.node().adminToken(), "/api/v1/gateway/conversations/life-1/events?after=0");
      List<String> texts = ledger.body().getJsonArray("events").stream().map(JsonObject.class::cast)
        .map(e -> e.encode()).filter(e -> e.contains("lifecycle_event")).toList();
      assertThat(texts).as("both transitions are in the agent's ledger").hasSize(2);
      assertThat(transition("life-1", "running").body().getString("event")).isEqualTo("Resumed");
    }
  }

  @Test
  void anAgentFirstSeenOnItsStreamEntersTheRegistryRunningWithNothingInItsConversation() {
    try (RawAgent agent = gw.connect("life-plain", gw.agentToken("life-plain"))) {
      assertThat(state("life-plain").getString("lifecycle")).isEqualTo("Running");
      assertThat(http.get(gw.node().adminToken(), "/api/v1/gateway/conversations/life-plain/events?after=0").body()
        .getJsonArray("events")).as("a plain Coven agent's conversation starts with its first message").isEmpty();
    }
  }

  @Test
  void aPausedAgentsQueueIsHeldThenDeliveredOnResume() {
    try (RawAgent agent = gw.connect("life-pause", gw.agentToken("life-pause"))) {
      String first = admin.sendOk("life-pause", "before", "pause-0");
      assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(first);
      assertThat(transition("life-pause", "Paused").status()).isEqualTo(200);
      String second = admin.sendOk("life-pause", "while paused 1", "pause-1");
      String third = admin.sendOk("life-pause", "while paused 2", "pause-2");
      // the request in flight when it paused may finish
      agent.respond(first, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      assertThat(agent.poll(1500)).as("a paused agent gets no new work").isNull();
      assertThat(state("life-pause").getString("lifecycle")).isEqualTo("Paused");

      assertThat(transition("life-pause", "running").status()).isEqualTo(200);
      ServerMessage m = agent.next();
      assertThat(m.getSendMessage().getRequestId()).isEqualTo(second);
      agent.respond(second, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(third);
    }
  }

  @Test
  void maintainingAndEvolvingAgentsGetNoNewWorkEither() {
    try (RawAgent agent = gw.connect("life-maint", gw.agentToken("life-maint"))) {
      for (String state : List.of("maintaining", "evolving")) {
        assertThat(transition("life-maint", state).status()).isEqualTo(200);
        String held = admin.sendOk("life-maint", "during " + state, "maint-" + state);
        assertThat(agent.poll(1000)).as("no work while " + state).isNull();
        assertThat(transition("life-maint", "running").body().getString("event")).isEqualTo("Resumed");
        String id = agent.next().getSendMessage().getRequestId();
        assertThat(id).isEqualTo(held);
        agent.respond(id, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      }
    }
  }

  @Test
  void aPausedAgentStaysPausedAcrossAReconnect() {
    String token = gw.agentToken("life-reconnect");
    try (RawAgent agent = gw.connect("life-reconnect", token)) {
      assertThat(transition("life-reconnect", "paused").status()).isEqualTo(200);
      agent.finish();
      agent.awaitEnd();
    }
    String queued = admin.sendOk("life-reconnect", "queued while paused", "reconnect-1");
    try (RawAgent agent = gw.connect("life-reconnect", token)) {
      assertThat(state("life-reconnect").getString("lifecycle")).isEqualTo("Paused");
      assertThat(agent.poll(1000)).isNull();
      transition("life-reconnect", "running");
      assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(queued);
    }
  }

  @Test
  void aRetiringAgentFinishesItsRequestThenGetsShutdownAndIsRetired() {
    try (RawAgent agent = gw.connect("life-retire", gw.agentToken("life-retire"))) {
      String inFlight = admin.sendOk("life-retire", "finish me", "retire-1");
      String queued = admin.sendOk("life-retire", "never delivered", "retire-2");
      assertThat(agent.next().getSendMessage().getRequestId()).isEqualTo(inFlight);
      HttpJson.Answer retiring = transition("life-retire", "retiring");
      assertThat(retiring.status()).isEqualTo(200);
      assertThat(retiring.body().getString("to")).isEqualTo("Retiring");
      assertThat(agent.poll(800)).as("nothing while the request in flight runs").isNull();
      agent.respond(inFlight, MessageResponse.newBuilder().setText("last words"));
      agent.respond(inFlight, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      ServerMessage shutdown = agent.next();
      assertThat(shutdown.hasShutdown()).as("got " + shutdown).isTrue();
      assertThat(shutdown.getShutdown().getReason()).contains("retired");
      assertThat(agent.awaitEnd().status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
      assertThat(state("life-retire").getString("lifecycle")).isEqualTo("Retired");
      // what was still queued ends (a retired agent never takes work), and new work is refused
      long deadline = System.currentTimeMillis() + 5000;
      while (!"error".equals(requestState(queued)) && System.currentTimeMillis() < deadline) {
        sleep(50);
      }
      assertThat(requestState(queued)).isEqualTo("error");
      var refused = admin.send("life-retire", "too late", "retire-3");
      assertThat(refused.status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
      assertThat(refused.message()).contains("agent_retired");
    }
  }

  @Test
  void aRetiredAgentIsRefusedAtRegistration() {
    String token = gw.agentToken("life-retired");
    try (RawAgent agent = gw.connect("life-retired", token)) {
      transition("life-retired", "retiring");
      assertThat(agent.next().hasShutdown()).isTrue();
      agent.awaitEnd();
    }
    assertThat(state("life-retired").getString("lifecycle")).isEqualTo("Retired");
    try (RawAgent again = gw.agent(token)) {
      again.send(dev.conclave.proto.coven.AgentMessage.newBuilder().setRegister(RawAgent.registration("life-retired")).build());
      ServerMessage refused = again.next();
      assertThat(refused.hasRegistrationError()).as("got " + refused).isTrue();
      assertThat(refused.getRegistrationError().getReason()).contains("retired");
      assertThat(again.awaitEnd().status()).isEqualTo(GrpcStatus.FAILED_PRECONDITION);
    }
  }

  @Test
  void anOfflineAgentRetiresAtOnce() {
    String token = gw.agentToken("life-offline");
    try (RawAgent agent = gw.connect("life-offline", token)) {
      agent.finish();
      agent.awaitEnd();
    }
    assertThat(transition("life-offline", "retiring").status()).isEqualTo(200);
    long deadline = System.currentTimeMillis() + 5000;
    while (!state("life-offline").getString("lifecycle").equals("Retired") && System.currentTimeMillis() < deadline) {
      sleep(50);
    }
    assertThat(state("life-offline").getString("lifecycle")).isEqualTo("Retired");
  }

  @Test
  void illegalTransitionsAreRefusedWithTheReason() {
    try (RawAgent agent = gw.connect("life-illegal", gw.agentToken("life-illegal"))) {
      HttpJson.Answer straight = transition("life-illegal", "retired");
      assertThat(straight.status()).isEqualTo(409);
      assertThat(straight.body().getString("code")).isEqualTo("lifecycle_transition_illegal");
      assertThat(straight.body().getString("detail")).contains("Running").contains("Retiring");
      HttpJson.Answer same = transition("life-illegal", "running");
      assertThat(same.status()).isEqualTo(409);
      assertThat(same.body().getString("detail")).contains("already Running");
      HttpJson.Answer unknown = transition("life-illegal", "sleeping");
      assertThat(unknown.status()).isEqualTo(400);
      assertThat(unknown.body().getString("code")).isEqualTo("lifecycle_state_invalid");
      assertThat(transition("nobody-here", "paused").status()).isEqualTo(404);
      assertThat(http.post(gw.memberToken("not-admin"), "/api/v1/gateway/agents/life-illegal/lifecycle",
        new JsonObject().put("to", "paused")).status()).isEqualTo(403);
      assertThat(state("life-illegal").getString("lifecycle")).isEqualTo("Running");
    }
  }

  @Test
  void registeredEntriesWithClassificationAndParentAreQueried() {
    String token = gw.node().adminToken();
    HttpJson.Answer parent = http.post(token, "/api/v1/gateway/registry/agents", new JsonObject().put("agentId", "q-super")
      .put("classification", "Component.Government.CoRT.Supervisor.Persistent.Restricted"));
    assertThat(parent.status()).isEqualTo(201);
    assertThat(parent.body().getString("lifecycle")).isEqualTo("Initialized");
    assertThat(parent.body().getString("security")).isEqualTo("Restricted");
    assertThat(http.post(token, "/api/v1/gateway/registry/agents", new JsonObject().put("agentId", "q-worker")
      .put("classification", "Tool.Finance.Search.Worker.Ephemeral.Public").put("parentId", "q-super")
      .put("capabilities", new JsonArray().add("chat")).put("lifecycle", "Defined")).status()).isEqualTo(201);
    assertThat(http.post(token, "/api/v1/gateway/registry/agents", new JsonObject().put("agentId", "q-worker")).status())
      .as("an existing id").isEqualTo(409);
    HttpJson.Answer bad = http.post(token, "/api/v1/gateway/registry/agents", new JsonObject().put("agentId", "q-bad")
      .put("classification", "Component.Government.CoRT"));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body().getString("code")).isEqualTo("classification_invalid");
    assertThat(http.post(token, "/api/v1/gateway/registry/agents", new JsonObject().put("agentId", "q-orphan").put("parentId", "nope"))
      .status()).isEqualTo(404);

    assertThat(ids("parentId=q-super")).containsExactly("q-worker");
    assertThat(ids("primaryType=component&role=SUPERVISOR")).containsExactly("q-super");
    assertThat(ids("domain=Finance&security=public")).containsExactly("q-worker");
    assertThat(ids("capabilities=chat,Search")).containsExactly("q-worker");
    assertThat(ids("capabilities=CoRT&lifecycle=initialized")).containsExactly("q-super");
    assertThat(ids("lifecycle=defined&primaryType=Tool")).containsExactly("q-worker");
    assertThat(ids("status=connected&primaryType=Tool")).isEmpty();
    assertThat(ids("status=offline&primaryType=Tool")).containsExactly("q-worker");
    assertThat(http.get(token, "/api/v1/gateway/registry/agents?colour=red").status()).isEqualTo(400);
    assertThat(http.get(token, "/api/v1/gateway/registry/agents?parent_id=q-super").status())
      .as("HTTP names the query's fields in camelCase; parent_id is the session protocol's").isEqualTo(400);

    // the registry entry is what a later stream connects to: connecting makes it Running
    try (RawAgent agent = gw.connect("q-worker", token)) {
      assertThat(ids("status=connected&lifecycle=running&parentId=q-super")).containsExactly("q-worker");
    }
    // a member sees only the agents it may act on
    assertThat(http.get(gw.memberToken("q-member"), "/api/v1/gateway/registry/agents?parentId=q-super").body()
      .getJsonArray("agents")).isEmpty();
  }

  private static String requestState(String requestId) {
    return http.get(gw.node().adminToken(), "/api/v1/gateway/requests/" + requestId).body().getString("state");
  }

  private static List<String> ids(String query) {
    HttpJson.Answer a = http.get(gw.node().adminToken(), "/api/v1/gateway/registry/agents?" + query);
    assertThat(a.status()).as(a.body().encode()).isEqualTo(200);
    return a.body().getJsonArray("agents").stream().map(JsonObject.class::cast).map(o -> o.getString("agentId")).toList();
  }

  private static JsonObject next(String agentId, String type) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 5000;
    while (System.currentTimeMillis() < deadline) {
      JsonObject e = BUS.poll(100, TimeUnit.MILLISECONDS);
      if (e != null && agentId.equals(e.getString("agent_id")) && type.equals(e.getString("type"))) {
        return e;
      }
    }
    throw new AssertionError("no " + type + " for " + agentId + " on the event bus");
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
