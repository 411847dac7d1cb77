package dev.conclave.packs.builtin;

import dev.conclave.packs.builtin.base.BasePack;
import dev.conclave.packs.builtin.notes.NotesPack;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The size limits are written twice, in {@link ToolInputs} (for clear errors) and as CHECK
 * constraints (so no row can break them): this test holds the two to the same numbers, counted the
 * same way (Unicode characters, not UTF-16 units or bytes).
 */
class BuiltinLimitsTest {

  private static PacksFixture db;

  /** An INSERT with {@code %s} where the bounded value goes, as a SQL expression. */
  private record Bound(String what, String insert, int max) {
  }

  private static final String NOW = "now()";

  private static final List<Bound> BOUNDS = List.of(
    new Bound("log message", "INSERT INTO packs.log_entries (id, agent_id, message, created_at) VALUES (gen_random_uuid(), 'a', %s, " + NOW + ")", ToolInputs.MAX_TEXT),
    new Bound("log agent", "INSERT INTO packs.log_entries (id, agent_id, message, created_at) VALUES (gen_random_uuid(), %s, 'm', " + NOW + ")", ToolInputs.MAX_NAME),
    new Bound("todo description", "INSERT INTO packs.todos (id, agent_id, description, created_at, updated_at) VALUES (gen_random_uuid(), 'a', %s, now(), now())", ToolInputs.MAX_TEXT),
    new Bound("todo notes", "INSERT INTO packs.todos (id, agent_id, description, notes, created_at, updated_at) VALUES (gen_random_uuid(), 'a', 'd', %s, now(), now())", ToolInputs.MAX_TEXT),
    new Bound("thread subject", "INSERT INTO packs.bbs_posts (id, agent_id, subject, content, created_at) VALUES (gen_random_uuid(), 'a', %s, 'c', now())", ToolInputs.MAX_NAME),
    new Bound("post content", "INSERT INTO packs.bbs_posts (id, agent_id, subject, content, created_at) VALUES (gen_random_uuid(), 'a', 's', %s, now())", ToolInputs.MAX_TEXT),
    new Bound("note key", "INSERT INTO packs.notes (id, agent_id, key, value, created_at, updated_at) VALUES (gen_random_uuid(), 'a', %s, 'v', now(), now())", ToolInputs.MAX_NAME),
    new Bound("note value", "INSERT INTO packs.notes (id, agent_id, key, value, created_at, updated_at) VALUES (gen_random_uuid(), 'a', gen_random_uuid()::text, %s, now(), now())", ToolInputs.MAX_TEXT),
    new Bound("mail recipient", "INSERT INTO packs.mail (id, from_agent_id, to_agent_id, subject, content, created_at) VALUES (gen_random_uuid(), 'a', %s, 's', 'c', now())", ToolInputs.MAX_NAME),
    new Bound("mail subject", "INSERT INTO packs.mail (id, from_agent_id, to_agent_id, subject, content, created_at) VALUES (gen_random_uuid(), 'a', 'b', %s, 'c', now())", ToolInputs.MAX_NAME),
    new Bound("mail content", "INSERT INTO packs.mail (id, from_agent_id, to_agent_id, subject, content, created_at) VALUES (gen_random_uuid(), 'a', 'b', 's', %s, now())", ToolInputs.MAX_TEXT));

  @BeforeAll
  static void start() {
    db = PacksFixture.start();
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  @Test
  void theDatabaseRefusesWhatTheToolsRefuse() {
    assertThat(ToolInputs.MAX_TEXT).isEqualTo(65_536);
    assertThat(ToolInputs.MAX_NAME).isEqualTo(200);
    for (Bound bound : BOUNDS) {
      // 'é' is one character but two bytes: the database must count characters, as the tools do
      db.sql(String.format(bound.insert(), "repeat('é', " + bound.max() + ")"));
      assertThatThrownBy(() -> db.sql(String.format(bound.insert(), "repeat('é', " + (bound.max() + 1) + ")")))
        .as(bound.what() + " over the limit").hasMessageContaining("check constraint");
    }
  }

  @Test
  void theDatabaseRefusesTagsTheToolsRefuse() {
    String insert = "INSERT INTO packs.log_entries (id, agent_id, message, tags, created_at) VALUES (gen_random_uuid(), 'a', 'm', %s, now())";
    db.sql(String.format(insert, "array_fill('t'::text, ARRAY[" + ToolInputs.MAX_TAGS + "])"));
    db.sql(String.format(insert, "ARRAY[repeat('t', " + ToolInputs.MAX_TAG + ")]"));
    assertThatThrownBy(() -> db.sql(String.format(insert, "array_fill('t'::text, ARRAY[" + (ToolInputs.MAX_TAGS + 1) + "])")))
      .hasMessageContaining("check constraint");
    assertThatThrownBy(() -> db.sql(String.format(insert, "ARRAY['ok', repeat('t', " + (ToolInputs.MAX_TAG + 1) + ")]")))
      .hasMessageContaining("check constraint");
  }

  @Test
  void theToolsAcceptExactlyTheLimitCountingCharactersNotUtf16Units() {
    BuiltinPack notes = NotesPack.create(db.pool, db.clock);
    BuiltinPack base = BasePack.create(db.pool, db.clock);
    ToolCaller agent = PacksFixture.newAgent("limits");
    // each emoji is one character but two UTF-16 units in Java
    String emojiValue = "\uD83D\uDE00".repeat(ToolInputs.MAX_TEXT);
    db.ok(notes, "note_set", agent, JsonObject.of("key", "k".repeat(ToolInputs.MAX_NAME), "value", emojiValue));
    assertThat(db.ok(notes, "note_get", agent, JsonObject.of("key", "k".repeat(ToolInputs.MAX_NAME))).getString("value")).isEqualTo(emojiValue);
    assertThat(db.fails(notes, "note_set", agent, JsonObject.of("key", "k", "value", emojiValue + "x")))
      .isEqualTo("value is too long: 65537 characters, at most 65536");

    JsonArray tags = new JsonArray(Collections.nCopies(ToolInputs.MAX_TAGS, "t".repeat(ToolInputs.MAX_TAG)));
    db.ok(base, "log_entry", agent, JsonObject.of("message", "m".repeat(ToolInputs.MAX_TEXT), "tags", tags));
  }
}
