package dev.conclave.packs.builtin;

import dev.conclave.packs.builtin.mail.MailPack;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code mail_send}, {@code mail_inbox} and {@code mail_read} against PostgreSQL. */
class MailPackTest {

  private static PacksFixture db;
  private static BuiltinPack mail;
  private final ToolCaller alice = PacksFixture.newAgent("alice");
  private final ToolCaller bob = PacksFixture.newAgent("bob");

  @BeforeAll
  static void start() {
    db = PacksFixture.start();
    mail = MailPack.create(db.pool, db.clock);
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  private String send(ToolCaller from, ToolCaller to, String subject, String content) {
    JsonObject out = db.ok(mail, "mail_send", from, JsonObject.of("to_agent_id", to.agentId(), "subject", subject, "content", content));
    assertThat(out.fieldNames()).containsExactly("id", "status");
    assertThat(out.getString("status")).isEqualTo("sent");
    return out.getString("id");
  }

  private List<String> subjects(ToolCaller agent, JsonObject input) {
    JsonObject out = db.ok(mail, "mail_inbox", agent, input);
    assertThat(out.getInteger("count")).isEqualTo(out.getJsonArray("messages").size());
    return out.getJsonArray("messages").stream().map(m -> ((JsonObject) m).getString("Subject")).toList();
  }

  @Test
  void mailArrivesInTheInboxInCovenShape() {
    db.clock.set(Instant.parse("2026-01-28T10:00:00.250Z"));
    String id = send(alice, bob, "Review", "Please review PR 12");
    JsonObject out = db.ok(mail, "mail_inbox", bob, new JsonObject());
    assertThat(out.fieldNames()).containsExactly("count", "messages");
    JsonObject m = out.getJsonArray("messages").getJsonObject(0);
    assertThat(m.fieldNames()).containsExactly("ID", "FromAgentID", "ToAgentID", "Subject", "Content", "ReadAt", "CreatedAt");
    assertThat(m).isEqualTo(new JsonObject().put("ID", id).put("FromAgentID", alice.agentId()).put("ToAgentID", bob.agentId())
      .put("Subject", "Review").put("Content", "Please review PR 12").putNull("ReadAt").put("CreatedAt", "2026-01-28T10:00:00.250Z"));
    assertThat(subjects(alice, new JsonObject())).as("the sender's inbox").isEmpty();
  }

  @Test
  void sendChecksItsFieldsInOrder() {
    assertThat(db.fails(mail, "mail_send", alice, JsonObject.of("subject", "", "content", ""))).isEqualTo("to_agent_id is required");
    assertThat(db.fails(mail, "mail_send", alice, JsonObject.of("to_agent_id", "bob", "content", ""))).isEqualTo("subject is required");
    assertThat(db.fails(mail, "mail_send", alice, JsonObject.of("to_agent_id", "bob", "subject", "s", "content", "")))
      .isEqualTo("content is required");
    assertThat(db.fails(mail, "mail_send", alice, JsonObject.of("to_agent_id", "bob", "subject", "s".repeat(201), "content", "c")))
      .isEqualTo("subject is too long: 201 characters, at most 200");
    assertThat(db.fails(mail, "mail_send", alice, JsonObject.of("to_agent_id", "b".repeat(201), "subject", "s", "content", "c")))
      .isEqualTo("to_agent_id is too long: 201 characters, at most 200");
  }

  @Test
  void anAgentMayMailItselfAndAgentsNobodyHasSeen() {
    send(alice, alice, "note to self", "remember");
    assertThat(subjects(alice, new JsonObject())).containsExactly("note to self");
    assertThat(db.ok(mail, "mail_send", alice, JsonObject.of("to_agent_id", "not-connected-yet", "subject", "s", "content", "c"))
      .getString("status")).isEqualTo("sent");
  }

  @Test
  void inboxIsNewestFirstAndCanShowOnlyUnread() {
    assertThat(db.ok(mail, "mail_inbox", bob, new JsonObject()).encode()).isEqualTo("{\"count\":0,\"messages\":[]}");
    String first = send(alice, bob, "first", "c");
    db.clock.advance(Duration.ofSeconds(1));
    send(alice, bob, "second", "c");
    send(alice, bob, "third, same millisecond", "c");
    db.ok(mail, "mail_read", bob, JsonObject.of("message_id", first));
    assertThat(subjects(bob, new JsonObject())).containsExactly("third, same millisecond", "second", "first");
    assertThat(subjects(bob, JsonObject.of("unread_only", true))).containsExactly("third, same millisecond", "second");
    assertThat(subjects(bob, JsonObject.of("unread_only", false))).hasSize(3);
    assertThat(subjects(bob, JsonObject.of("limit", 1))).containsExactly("third, same millisecond");
  }

  @Test
  void inboxDefaultsTo20AndIsCappedAt500() {
    ToolCaller busy = PacksFixture.newAgent("busy");
    db.sql("INSERT INTO packs.mail (id, from_agent_id, to_agent_id, subject, content, created_at) SELECT gen_random_uuid(), 'x', '"
      + busy.agentId() + "', 'mail ' || g, 'c', timestamptz '2026-01-01T00:00:00Z' + g * interval '1 second' FROM generate_series(1, 501) g");
    List<String> byDefault = subjects(busy, new JsonObject());
    assertThat(byDefault).hasSize(20);
    assertThat(byDefault.get(0)).isEqualTo("mail 501");
    assertThat(subjects(busy, JsonObject.of("limit", -1))).hasSize(20);
    JsonObject capped = db.ok(mail, "mail_inbox", busy, JsonObject.of("limit", 501));
    assertThat(capped.getInteger("count")).isEqualTo(500);
    assertThat(capped.getBoolean("truncated")).isTrue();
  }

  @Test
  void aListStopsBeforeItWouldOutgrowOneGrpcMessage() {
    ToolCaller reader = PacksFixture.newAgent("reader");
    String big = "x".repeat(65_536);
    for (int i = 0; i < 20; i++) {
      send(alice, reader, "big " + i, big);
    }
    JsonObject out = db.ok(mail, "mail_inbox", reader, new JsonObject());
    assertThat(out.getInteger("count")).isBetween(1, 19);
    assertThat(out.getBoolean("truncated")).isTrue();
    assertThat(out.encode().length()).isLessThanOrEqualTo(JsonOutputs.LIST_BUDGET + 100);
  }

  @Test
  void readMarksTheMailReadOnceAndShowsWhen() {
    db.clock.set(Instant.parse("2026-05-01T09:00:00Z"));
    String id = send(alice, bob, "hello", "how are you");
    db.clock.set(Instant.parse("2026-05-01T09:30:00Z"));
    JsonObject first = db.ok(mail, "mail_read", bob, JsonObject.of("message_id", id));
    assertThat(first.fieldNames()).containsExactly("ID", "FromAgentID", "ToAgentID", "Subject", "Content", "ReadAt", "CreatedAt");
    assertThat(first.getString("Content")).isEqualTo("how are you");
    assertThat(first.getString("ReadAt")).as("the state after this read").isEqualTo("2026-05-01T09:30:00Z");
    db.clock.set(Instant.parse("2026-05-01T11:00:00Z"));
    JsonObject again = db.ok(mail, "mail_read", bob, JsonObject.of("message_id", id));
    assertThat(again.getString("ReadAt")).as("the first read's time stays").isEqualTo("2026-05-01T09:30:00Z");
    assertThat(subjects(bob, JsonObject.of("unread_only", true))).isEmpty();
  }

  @Test
  void readChecksTheId() {
    assertThat(db.fails(mail, "mail_read", bob, JsonObject.of("message_id", ""))).isEqualTo("message_id is required");
    assertThat(db.fails(mail, "mail_read", bob, JsonObject.of("message_id", "msg-1"))).isEqualTo("message not found");
    assertThat(db.fails(mail, "mail_read", bob, JsonObject.of("message_id", UUID.randomUUID().toString()))).isEqualTo("message not found");
  }

  @Test
  void onlyTheRecipientSeesOrReadsAMail() {
    ToolCaller eve = PacksFixture.newAgent("eve");
    String id = send(alice, bob, "private", "for bob only");
    assertThat(subjects(eve, new JsonObject())).isEmpty();
    assertThat(db.fails(mail, "mail_read", eve, JsonObject.of("message_id", id))).isEqualTo("message not found");
    assertThat(db.fails(mail, "mail_read", alice, JsonObject.of("message_id", id))).as("not even the sender").isEqualTo("message not found");
    assertThat(subjects(bob, JsonObject.of("unread_only", true))).as("others' attempts did not mark it read").containsExactly("private");
  }
}
