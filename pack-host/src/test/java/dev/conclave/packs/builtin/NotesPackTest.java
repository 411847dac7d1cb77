package dev.conclave.packs.builtin;

import dev.conclave.packs.builtin.notes.NotesPack;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code note_set}, {@code note_get}, {@code note_list} and {@code note_delete} against PostgreSQL. */
class NotesPackTest {

  private static PacksFixture db;
  private static BuiltinPack notes;

  @BeforeAll
  static void start() {
    db = PacksFixture.start();
    notes = NotesPack.create(db.pool, db.clock);
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  private JsonObject set(ToolCaller agent, String key, String value) {
    return db.ok(notes, "note_set", agent, JsonObject.of("key", key, "value", value));
  }

  private String get(ToolCaller agent, String key) {
    JsonObject out = db.ok(notes, "note_get", agent, JsonObject.of("key", key));
    assertThat(out.fieldNames()).containsExactly("key", "value");
    assertThat(out.getString("key")).isEqualTo(key);
    return out.getString("value");
  }

  @Test
  void aNoteIsSavedReadAndReplaced() {
    ToolCaller agent = PacksFixture.newAgent("keeper");
    assertThat(set(agent, "repo", "github.com/acme/app").encode()).isEqualTo("{\"key\":\"repo\",\"status\":\"saved\"}");
    assertThat(get(agent, "repo")).isEqualTo("github.com/acme/app");
    set(agent, "repo", "gitlab.com/acme/app");
    assertThat(get(agent, "repo")).isEqualTo("gitlab.com/acme/app");
    assertThat(db.ok(notes, "note_list", agent, new JsonObject()).getJsonArray("keys")).containsExactly("repo");
  }

  @Test
  void anEmptyValueIsAValue() {
    ToolCaller agent = PacksFixture.newAgent("keeper");
    set(agent, "blank", "");
    assertThat(get(agent, "blank")).isEmpty();
  }

  @Test
  void keysAreRequiredAndValuesBounded() {
    ToolCaller agent = PacksFixture.newAgent("keeper");
    assertThat(db.fails(notes, "note_set", agent, JsonObject.of("value", "v"))).isEqualTo("key is required");
    assertThat(db.fails(notes, "note_set", agent, JsonObject.of("key", "", "value", "v"))).isEqualTo("key is required");
    assertThat(db.fails(notes, "note_get", agent, JsonObject.of("key", ""))).isEqualTo("key is required");
    assertThat(db.fails(notes, "note_delete", agent, new JsonObject())).isEqualTo("key is required");
    assertThat(db.fails(notes, "note_set", agent, JsonObject.of("key", "k".repeat(201), "value", "v")))
      .isEqualTo("key is too long: 201 characters, at most 200");
    assertThat(db.fails(notes, "note_set", agent, JsonObject.of("key", "k", "value", "v".repeat(65_537))))
      .isEqualTo("value is too long: 65537 characters, at most 65536");
    assertThat(db.fails(notes, "note_set", agent, JsonObject.of("key", "k", "value", "a\u0000b")))
      .isEqualTo("value must not contain NUL characters");
    assertThat(db.ok(notes, "note_list", agent, new JsonObject()).getInteger("count")).isZero();
  }

  @Test
  void aMissingNoteIsNamedInTheError() {
    ToolCaller agent = PacksFixture.newAgent("keeper");
    assertThat(db.fails(notes, "note_get", agent, JsonObject.of("key", "todo list"))).isEqualTo("note not found: \"todo list\"");
    assertThat(db.fails(notes, "note_delete", agent, JsonObject.of("key", "say \"hi\""))).isEqualTo("note not found: \"say \\\"hi\\\"\"");
  }

  @Test
  void listIsSortedByKeyEmptyAsAnEmptyListAndIgnoresItsInput() {
    ToolCaller agent = PacksFixture.newAgent("keeper");
    assertThat(db.ok(notes, "note_list", agent, new JsonObject()).encode()).isEqualTo("{\"count\":0,\"keys\":[]}");
    set(agent, "zeta", "1");
    set(agent, "alpha", "2");
    set(agent, "Mid", "3");
    JsonObject out = db.ok(notes, "note_list", agent, JsonObject.of("anything", "ignored"));
    assertThat(out.fieldNames()).containsExactly("count", "keys");
    assertThat(out.getInteger("count")).isEqualTo(3);
    assertThat(out.getJsonArray("keys")).containsExactly("Mid", "alpha", "zeta");
  }

  @Test
  void listReturnsAtMost500Keys() {
    ToolCaller agent = PacksFixture.newAgent("hoarder");
    db.sql("INSERT INTO packs.notes (id, agent_id, key, value, created_at, updated_at) SELECT gen_random_uuid(), '" + agent.agentId()
      + "', 'k' || lpad(g::text, 4, '0'), 'v', now(), now() FROM generate_series(1, 501) g");
    JsonObject out = db.ok(notes, "note_list", agent, new JsonObject());
    assertThat(out.getInteger("count")).isEqualTo(500);
    assertThat(out.getJsonArray("keys").getString(499)).isEqualTo("k0500");
    assertThat(out.getBoolean("truncated")).isTrue();
  }

  @Test
  void deleteRemovesTheNote() {
    ToolCaller agent = PacksFixture.newAgent("keeper");
    set(agent, "tmp", "x");
    assertThat(db.ok(notes, "note_delete", agent, JsonObject.of("key", "tmp")).encode()).isEqualTo("{\"key\":\"tmp\",\"status\":\"deleted\"}");
    assertThat(db.fails(notes, "note_get", agent, JsonObject.of("key", "tmp"))).isEqualTo("note not found: \"tmp\"");
    assertThat(db.fails(notes, "note_delete", agent, JsonObject.of("key", "tmp"))).isEqualTo("note not found: \"tmp\"");
  }

  @Test
  void notesArePerAgent() {
    ToolCaller a = PacksFixture.newAgent("a");
    ToolCaller b = PacksFixture.newAgent("b");
    set(a, "secret", "a's value");
    assertThat(db.fails(notes, "note_get", b, JsonObject.of("key", "secret"))).isEqualTo("note not found: \"secret\"");
    assertThat(db.fails(notes, "note_delete", b, JsonObject.of("key", "secret"))).isEqualTo("note not found: \"secret\"");
    assertThat(db.ok(notes, "note_list", b, new JsonObject()).getJsonArray("keys")).isEmpty();
    set(b, "secret", "b's own value");
    assertThat(get(a, "secret")).isEqualTo("a's value");
    assertThat(get(b, "secret")).isEqualTo("b's own value");
    db.ok(notes, "note_delete", b, JsonObject.of("key", "secret"));
    assertThat(get(a, "secret")).isEqualTo("a's value");
  }
}
