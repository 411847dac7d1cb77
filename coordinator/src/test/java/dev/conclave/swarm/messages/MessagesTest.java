package dev.conclave.swarm.messages;

import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.Scenario;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/** SEND_MESSAGE, RECEIVE_MESSAGES and acknowledgements. */
class MessagesTest {

  private static SwarmNode swarm;
  private static SwarmApi api;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start();
    api = swarm.api();
  }

  @AfterAll
  static void stop() {
    swarm.close();
  }

  private static Reply send(String from, JsonObject message) {
    return api.post("/api/v1/messages", v1().put("agentId", from).put("message", message));
  }

  private static JsonObject message(String to, String type, Object payload) {
    return new JsonObject().put("to", to).put("type", type).put("payload", payload);
  }

  private static JsonArray receive(String agentId, String query) {
    Reply reply = api.get("/api/v1/messages?protocolVersion=1.0&agentId=" + agentId + (query.isEmpty() ? "" : "&" + query));
    assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
    assertThat(reply.json().getBoolean("success")).isTrue();
    return reply.array("messages");
  }

  private static List<Object> payloads(JsonArray messages) {
    return messages.stream().map(m -> ((JsonObject) m).getValue("payload")).toList();
  }

  @Test
  void directMessagesReachTheirAgentInOrderOnce() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    String c = s.agent();
    Reply sent = send(a, message(b, "task.help_needed", new JsonObject().put("n", 1)));
    assertThat(sent.status()).isEqualTo(200);
    assertThat(sent.json().getBoolean("success")).isTrue();
    String id = sent.json().getString("messageId");
    swarm.clock().advance(Duration.ofMillis(1));
    send(a, message(b, "info.discovery", new JsonObject().put("n", 2)));

    JsonArray got = receive(b, "");

    assertThat(payloads(got)).containsExactly(new JsonObject().put("n", 1), new JsonObject().put("n", 2));
    JsonObject first = got.getJsonObject(0);
    assertThat(first.getString("id")).isEqualTo(id);
    assertThat(first.getString("from")).isEqualTo(a);
    assertThat(first.getString("to")).isEqualTo(b);
    assertThat(first.getString("type")).isEqualTo("task.help_needed");
    assertThat(first.getBoolean("ackRequired")).isFalse();
    assertThat(Instant.parse(first.getString("createdAt"))).isBefore(Instant.parse(got.getJsonObject(1).getString("createdAt")));
    assertThat(receive(b, "")).as("delivered once").isEmpty();
    assertThat(receive(c, "")).as("not for c").isEmpty();
  }

  @Test
  void broadcastsReachEveryOtherAgent() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    send(a, new JsonObject().put("type", "coordination.sync").put("payload", "hello all"));
    swarm.clock().advance(Duration.ofMillis(1));
    String late = s.agent();

    JsonArray atB = receive(b, "");
    assertThat(atB.stream().map(m -> ((JsonObject) m).getValue("payload")).toList()).contains("hello all");
    JsonObject broadcast = atB.stream().map(m -> (JsonObject) m).filter(m -> "hello all".equals(m.getValue("payload"))).findFirst().orElseThrow();
    assertThat(broadcast.containsKey("to")).isTrue();
    assertThat(broadcast.getValue("to")).isNull();
    assertThat(payloads(receive(a, ""))).as("not back to the sender").doesNotContain("hello all");
    assertThat(payloads(receive(late, ""))).as("not to agents registered after it").doesNotContain("hello all");
  }

  @Test
  void receiveFiltersByTypeSinceAndLimit() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    send(a, message(b, "custom", 1));
    swarm.clock().advance(Duration.ofSeconds(1));
    Instant between = swarm.clock().instant();
    swarm.clock().advance(Duration.ofSeconds(1));
    send(a, message(b, "task.handoff", 2));
    send(a, message(b, "custom", 3));
    send(a, message(b, "custom", 4));

    assertThat(payloads(receive(b, "types=task.handoff"))).containsExactly(2);
    assertThat(payloads(receive(b, "since=" + between + "&limit=1"))).containsExactly(3);
    assertThat(payloads(receive(b, ""))).containsExactly(1, 4);
  }

  @Test
  void messagesThatNeedAnAckComeAgainUntilAcknowledged() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    String id = send(a, message(b, "task.handoff", "take it").put("ackRequired", true)).json().getString("messageId");

    assertThat(receive(b, "").getJsonObject(0).getBoolean("ackRequired")).isTrue();
    assertThat(payloads(receive(b, ""))).containsExactly("take it");

    Reply ack = api.post("/api/v1/messages/" + id + "/ack", v1().put("agentId", b));
    assertThat(ack.status()).as(ack.toString()).isEqualTo(200);
    assertThat(ack.json().getBoolean("success")).isTrue();
    assertThat(receive(b, "")).isEmpty();
    assertThat(api.post("/api/v1/messages/" + id + "/ack", v1().put("agentId", a)).code()).as("a sender is no recipient")
      .isEqualTo("message_not_found");
  }

  @Test
  void expiredMessagesAreNotDelivered() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    String b = s.agent();
    String id = send(a, message(b, "custom", "soon gone").put("expiresIn", 5000)).json().getString("messageId");
    send(a, message(b, "custom", "kept"));

    swarm.clock().advance(Duration.ofSeconds(5));

    assertThat(payloads(receive(b, ""))).containsExactly("kept");
    swarm.events().await("message", "expired", id);
  }

  @Test
  void messagesAreChecked() {
    Scenario s = new Scenario(api);
    String a = s.agent();
    assertThat(send(a, message("nobody-at-all", "custom", 1)).code()).isEqualTo("recipient_not_registered");
    Reply badType = send(a, new JsonObject().put("type", "gossip"));
    assertThat(badType.status()).isEqualTo(400);
    assertThat(badType.json().getString("field")).isEqualTo("message.type");
    Reply tooBig = send(a, new JsonObject().put("type", "custom").put("payload", "x".repeat(70_000)));
    assertThat(tooBig.json().getString("field")).isEqualTo("message.payload");
    Reply noVersion = api.get("/api/v1/messages?agentId=" + a);
    assertThat(noVersion.code()).isEqualTo("unsupported_protocol_version");
    Reply badLimit = api.get("/api/v1/messages?protocolVersion=1.0&agentId=" + a + "&limit=0");
    assertThat(badLimit.json().getString("field")).isEqualTo("limit");
    Reply badSince = api.get("/api/v1/messages?protocolVersion=1.0&agentId=" + a + "&since=yesterday");
    assertThat(badSince.json().getString("field")).isEqualTo("since");
  }
}
