package dev.conclave.packs.builtin;

import dev.conclave.packs.builtin.base.BasePack;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The shared bulletin board: {@code bbs_create_thread}, {@code bbs_reply}, {@code bbs_list_threads}, {@code bbs_read_thread}. */
class BbsToolsTest {

  private static PacksFixture db;
  private static BuiltinPack base;
  private final ToolCaller alice = PacksFixture.newAgent("alice");
  private final ToolCaller bob = PacksFixture.newAgent("bob");

  @BeforeAll
  static void start() {
    db = PacksFixture.start();
    base = BasePack.create(db.pool, db.clock);
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @BeforeEach
  void emptyBoard() {
    // the board is shared by all agents, so each test starts from an empty one
    db.sql("TRUNCATE packs.bbs_posts");
  }

  private String thread(ToolCaller agent, String subject, String content) {
    JsonObject out = db.ok(base, "bbs_create_thread", agent, JsonObject.of("subject", subject, "content", content));
    assertThat(out.fieldNames()).containsExactly("status", "thread_id");
    assertThat(out.getString("status")).isEqualTo("created");
    return out.getString("thread_id");
  }

  private String reply(ToolCaller agent, String threadId, String content) {
    JsonObject out = db.ok(base, "bbs_reply", agent, JsonObject.of("thread_id", threadId, "content", content));
    assertThat(out.fieldNames()).containsExactly("post_id", "status");
    assertThat(out.getString("status")).isEqualTo("posted");
    return out.getString("post_id");
  }

  private List<String> subjects(JsonObject input) {
    JsonObject out = db.ok(base, "bbs_list_threads", bob, input);
    assertThat(out.getInteger("count")).isEqualTo(out.getJsonArray("threads").size());
    return out.getJsonArray("threads").stream().map(t -> ((JsonObject) t).getString("Subject")).toList();
  }

  @Test
  void aThreadWithRepliesReadsInCovenShapeRepliesOldestFirst() {
    db.clock.set(Instant.parse("2026-01-28T10:00:00Z"));
    String id = thread(alice, "Release plan", "Ship Friday?");
    db.clock.advance(Duration.ofMinutes(1));
    String first = reply(bob, id, "Fine by me");
    String second = reply(alice, id, "Then Friday it is");

    JsonObject out = db.ok(base, "bbs_read_thread", bob, JsonObject.of("thread_id", id));
    assertThat(out.fieldNames()).containsExactly("Post", "Replies");
    assertThat(out.getJsonObject("Post")).isEqualTo(new JsonObject().put("ID", id).put("AgentID", alice.agentId()).put("ThreadID", "")
      .put("Subject", "Release plan").put("Content", "Ship Friday?").put("CreatedAt", "2026-01-28T10:00:00Z"));
    assertThat(out.getJsonArray("Replies")).containsExactly(
      new JsonObject().put("ID", first).put("AgentID", bob.agentId()).put("ThreadID", id).put("Subject", "")
        .put("Content", "Fine by me").put("CreatedAt", "2026-01-28T10:01:00Z"),
      new JsonObject().put("ID", second).put("AgentID", alice.agentId()).put("ThreadID", id).put("Subject", "")
        .put("Content", "Then Friday it is").put("CreatedAt", "2026-01-28T10:01:00Z"));
  }

  @Test
  void aThreadWithoutRepliesHasAnEmptyReplyList() {
    String id = thread(alice, "Quiet", "anyone?");
    assertThat(db.ok(base, "bbs_read_thread", alice, JsonObject.of("thread_id", id)).getJsonArray("Replies")).isEmpty();
  }

  @Test
  void createChecksSubjectThenContent() {
    assertThat(db.fails(base, "bbs_create_thread", alice, JsonObject.of("content", "c"))).isEqualTo("subject is required");
    assertThat(db.fails(base, "bbs_create_thread", alice, JsonObject.of("subject", "", "content", ""))).isEqualTo("subject is required");
    assertThat(db.fails(base, "bbs_create_thread", alice, JsonObject.of("subject", "s", "content", ""))).isEqualTo("content is required");
    assertThat(db.fails(base, "bbs_create_thread", alice, JsonObject.of("subject", "s".repeat(201), "content", "c")))
      .isEqualTo("subject is too long: 201 characters, at most 200");
    assertThat(subjects(new JsonObject())).isEmpty();
  }

  @Test
  void replyChecksItsTarget() {
    String id = thread(alice, "Topic", "text");
    String replyId = reply(bob, id, "a reply");
    assertThat(db.fails(base, "bbs_reply", bob, JsonObject.of("thread_id", "", "content", "c"))).isEqualTo("thread_id is required");
    assertThat(db.fails(base, "bbs_reply", bob, JsonObject.of("thread_id", id, "content", ""))).isEqualTo("content is required");
    assertThat(db.fails(base, "bbs_reply", bob, JsonObject.of("thread_id", UUID.randomUUID().toString(), "content", "c")))
      .isEqualTo("thread not found");
    assertThat(db.fails(base, "bbs_reply", bob, JsonObject.of("thread_id", "thread-1", "content", "c"))).isEqualTo("thread not found");
    assertThat(db.fails(base, "bbs_reply", bob, JsonObject.of("thread_id", replyId, "content", "c")))
      .isEqualTo("cannot reply to a reply, use original thread_id");
    assertThat(db.ok(base, "bbs_read_thread", bob, JsonObject.of("thread_id", id)).getJsonArray("Replies")).hasSize(1);
  }

  @Test
  void readChecksItsTarget() {
    String id = thread(alice, "Topic", "text");
    String replyId = reply(bob, id, "a reply");
    assertThat(db.fails(base, "bbs_read_thread", bob, JsonObject.of("thread_id", ""))).isEqualTo("thread_id is required");
    assertThat(db.fails(base, "bbs_read_thread", bob, JsonObject.of("thread_id", UUID.randomUUID().toString()))).isEqualTo("thread not found");
    assertThat(db.fails(base, "bbs_read_thread", bob, JsonObject.of("thread_id", "nope"))).isEqualTo("thread not found");
    assertThat(db.fails(base, "bbs_read_thread", bob, JsonObject.of("thread_id", replyId)))
      .isEqualTo(replyId + " is a reply, not a thread; its thread_id is " + id);
  }

  @Test
  void threadsOfAllAgentsListNewestFirstWithoutReplies() {
    assertThat(db.ok(base, "bbs_list_threads", bob, new JsonObject()).encode()).isEqualTo("{\"count\":0,\"threads\":[]}");
    String first = thread(alice, "first", "c");
    db.clock.advance(Duration.ofSeconds(1));
    thread(bob, "second", "c");
    thread(alice, "third, same millisecond", "c");
    reply(bob, first, "replies are not threads");
    assertThat(subjects(new JsonObject())).containsExactly("third, same millisecond", "second", "first");
    assertThat(subjects(JsonObject.of("limit", 2))).containsExactly("third, same millisecond", "second");
    JsonObject listed = db.ok(base, "bbs_list_threads", bob, new JsonObject()).getJsonArray("threads").getJsonObject(2);
    assertThat(listed.fieldNames()).containsExactly("ID", "AgentID", "ThreadID", "Subject", "Content", "CreatedAt");
    assertThat(listed.getString("ID")).isEqualTo(first);
    assertThat(listed.getString("ThreadID")).isEmpty();
  }

  @Test
  void listDefaultsTo50AndIsCappedAt500() {
    db.sql("INSERT INTO packs.bbs_posts (id, agent_id, subject, content, created_at) SELECT gen_random_uuid(), 'someone',"
      + " 'thread ' || g, 'c', timestamptz '2026-01-01T00:00:00Z' + g * interval '1 second' FROM generate_series(1, 501) g");
    List<String> byDefault = subjects(new JsonObject());
    assertThat(byDefault).hasSize(50);
    assertThat(byDefault.get(0)).isEqualTo("thread 501");
    assertThat(subjects(JsonObject.of("limit", 0))).hasSize(50);
    JsonObject capped = db.ok(base, "bbs_list_threads", bob, JsonObject.of("limit", 10_000));
    assertThat(capped.getInteger("count")).isEqualTo(500);
    assertThat(capped.getBoolean("truncated")).isTrue();
  }

  @Test
  void aThreadWithMoreThan500RepliesShowsTheOldest500() {
    String id = thread(alice, "Busy", "c");
    db.sql("INSERT INTO packs.bbs_posts (id, agent_id, thread_id, content, created_at) SELECT gen_random_uuid(), 'someone', '" + id
      + "', 'reply ' || g, timestamptz '2030-01-01T00:00:00Z' + g * interval '1 second' FROM generate_series(1, 501) g");
    JsonObject out = db.ok(base, "bbs_read_thread", bob, JsonObject.of("thread_id", id));
    assertThat(out.getJsonArray("Replies")).hasSize(500);
    assertThat(out.getJsonArray("Replies").getJsonObject(0).getString("Content")).isEqualTo("reply 1");
    assertThat(out.getBoolean("truncated")).isTrue();
  }
}
