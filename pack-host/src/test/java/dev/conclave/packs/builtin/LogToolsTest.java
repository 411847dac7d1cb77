package dev.conclave.packs.builtin;

import dev.conclave.packs.builtin.base.BasePack;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code log_entry} and {@code log_search} against PostgreSQL. */
class LogToolsTest {

  private static PacksFixture db;
  private static BuiltinPack base;

  @BeforeAll
  static void start() {
    db = PacksFixture.start();
    base = BasePack.create(db.pool, db.clock);
  }

  @AfterAll
  static void stop() {
    db.close();
  }

  private JsonObject log(ToolCaller agent, String message, String... tags) {
    return db.ok(base, "log_entry", agent, JsonObject.of("message", message, "tags", new JsonArray(List.of(tags))));
  }

  private JsonObject search(ToolCaller agent, JsonObject input) {
    return db.ok(base, "log_search", agent, input);
  }

  private static List<String> messages(JsonObject out) {
    return out.getJsonArray("entries").stream().map(e -> ((JsonObject) e).getString("Message")).toList();
  }

  @Test
  void anEntryIsLoggedAndFoundWithCovenShape() {
    ToolCaller agent = PacksFixture.newAgent("logger");
    db.clock.set(Instant.parse("2026-01-28T10:00:00.123456Z"));
    JsonObject logged = log(agent, "deployed v2", "deploy", "prod");
    assertThat(logged.fieldNames()).containsExactly("id", "status");
    assertThat(logged.getString("status")).isEqualTo("logged");

    JsonObject out = search(agent, new JsonObject());
    assertThat(out.fieldNames()).containsExactly("count", "entries");
    assertThat(out.getInteger("count")).isEqualTo(1);
    JsonObject entry = out.getJsonArray("entries").getJsonObject(0);
    assertThat(entry.fieldNames()).containsExactly("ID", "AgentID", "Message", "Tags", "CreatedAt");
    assertThat(entry.getString("ID")).isEqualTo(logged.getString("id"));
    assertThat(entry.getString("AgentID")).isEqualTo(agent.agentId());
    assertThat(entry.getString("Message")).isEqualTo("deployed v2");
    assertThat(entry.getJsonArray("Tags")).containsExactly("deploy", "prod");
    assertThat(entry.getString("CreatedAt")).isEqualTo("2026-01-28T10:00:00.123Z");
  }

  @Test
  void anEntryWithoutTagsHasAnEmptyTagList() {
    ToolCaller agent = PacksFixture.newAgent("logger");
    db.ok(base, "log_entry", agent, JsonObject.of("message", "no tags"));
    JsonObject entry = search(agent, new JsonObject()).getJsonArray("entries").getJsonObject(0);
    assertThat(entry.getJsonArray("Tags")).isEmpty();
  }

  @Test
  void aMessageIsRequiredAndTagsAreBounded() {
    ToolCaller agent = PacksFixture.newAgent("logger");
    assertThat(db.fails(base, "log_entry", agent, new JsonObject())).isEqualTo("message is required");
    assertThat(db.fails(base, "log_entry", agent, JsonObject.of("message", ""))).isEqualTo("message is required");
    assertThat(db.fails(base, "log_entry", agent, JsonObject.of("message", "x".repeat(65_537))))
      .isEqualTo("message is too long: 65537 characters, at most 65536");
    JsonArray tooMany = new JsonArray();
    for (int i = 0; i < 33; i++) {
      tooMany.add("t" + i);
    }
    assertThat(db.fails(base, "log_entry", agent, JsonObject.of("message", "m", "tags", tooMany))).isEqualTo("too many tags: 33, at most 32");
    assertThat(db.fails(base, "log_entry", agent, JsonObject.of("message", "m", "tags", new JsonArray().add("x".repeat(101)))))
      .isEqualTo("each of tags is too long: 101 characters, at most 100");
    assertThat(search(agent, new JsonObject()).getInteger("count")).as("nothing was logged").isZero();
  }

  @Test
  void searchIsNewestFirstAndAnEmptyResultIsAnEmptyList() {
    ToolCaller agent = PacksFixture.newAgent("logger");
    assertThat(search(agent, new JsonObject()).encode()).isEqualTo("{\"count\":0,\"entries\":[]}");
    log(agent, "first");
    db.clock.advance(Duration.ofSeconds(1));
    log(agent, "second");
    log(agent, "third, same millisecond");
    assertThat(messages(search(agent, new JsonObject()))).containsExactly("third, same millisecond", "second", "first");
  }

  @Test
  void queryIsACaseInsensitiveLiteralSubstring() {
    ToolCaller agent = PacksFixture.newAgent("logger");
    log(agent, "Build FAILED on main");
    log(agent, "100% done");
    log(agent, "1000 done");
    log(agent, "file_name.txt");
    log(agent, "filename.txt");
    log(agent, "path C:\\temp");
    assertThat(messages(search(agent, JsonObject.of("query", "failed")))).containsExactly("Build FAILED on main");
    assertThat(messages(search(agent, JsonObject.of("query", "0%")))).containsExactly("100% done");
    assertThat(messages(search(agent, JsonObject.of("query", "file_")))).containsExactly("file_name.txt");
    assertThat(messages(search(agent, JsonObject.of("query", "C:\\t")))).containsExactly("path C:\\temp");
    assertThat(messages(search(agent, JsonObject.of("query", "")))).hasSize(6);
  }

  @Test
  void sinceIsInclusiveAndMustBeRfc3339() {
    ToolCaller agent = PacksFixture.newAgent("logger");
    db.clock.set(Instant.parse("2026-03-01T08:00:00Z"));
    log(agent, "old");
    db.clock.set(Instant.parse("2026-03-01T09:00:00Z"));
    log(agent, "at nine");
    db.clock.set(Instant.parse("2026-03-01T10:00:00Z"));
    log(agent, "at ten");
    assertThat(messages(search(agent, JsonObject.of("since", "2026-03-01T09:00:00Z")))).containsExactly("at ten", "at nine");
    assertThat(messages(search(agent, JsonObject.of("since", "2026-03-01T11:30:00+02:00")))).containsExactly("at ten");
    assertThat(messages(search(agent, JsonObject.of("since", "2026-03-01T10:00:00.001Z")))).isEmpty();
    assertThat(db.fails(base, "log_search", agent, JsonObject.of("since", "yesterday")))
      .isEqualTo("invalid since date: \"yesterday\" is not an RFC 3339 date-time such as 2026-01-28T10:00:00Z");
    assertThat(db.fails(base, "log_search", agent, JsonObject.of("since", "2026-03-01"))).startsWith("invalid since date: ");
  }

  @Test
  void limitDefaultsTo50AndIsCappedAt500() {
    ToolCaller agent = PacksFixture.newAgent("logger");
    db.sql("INSERT INTO packs.log_entries (id, agent_id, message, created_at) SELECT gen_random_uuid(), '" + agent.agentId()
      + "', 'entry ' || g, timestamptz '2026-01-01T00:00:00Z' + g * interval '1 second' FROM generate_series(1, 600) g");
    JsonObject byDefault = search(agent, new JsonObject());
    assertThat(byDefault.getInteger("count")).isEqualTo(50);
    assertThat(messages(byDefault).get(0)).isEqualTo("entry 600");
    assertThat(byDefault.containsKey("truncated")).isFalse();
    assertThat(search(agent, JsonObject.of("limit", 0)).getInteger("count")).isEqualTo(50);
    assertThat(search(agent, JsonObject.of("limit", -3)).getInteger("count")).isEqualTo(50);
    assertThat(search(agent, JsonObject.of("limit", 7)).getInteger("count")).isEqualTo(7);
    JsonObject asked500 = search(agent, JsonObject.of("limit", 500));
    assertThat(asked500.getInteger("count")).isEqualTo(500);
    assertThat(asked500.containsKey("truncated")).as("500 is what was asked for").isFalse();
    JsonObject asked1000 = search(agent, JsonObject.of("limit", 1000));
    assertThat(asked1000.getInteger("count")).isEqualTo(500);
    assertThat(asked1000.getBoolean("truncated")).as("the cap left matching entries out").isTrue();
    assertThat(messages(asked1000).get(499)).isEqualTo("entry 101");
  }

  @Test
  void inputParsedAsPlainMapsListsAndBigNumbersWorks() {
    // the dispatcher hands over what its JSON parser produced: java.util lists and maps, BigInteger
    ToolCaller agent = PacksFixture.newAgent("logger");
    Map<String, Object> parsed = new LinkedHashMap<>();
    parsed.put("message", "from a map");
    parsed.put("tags", new ArrayList<>(List.of("x", "y")));
    db.ok(base, "log_entry", agent, new JsonObject(parsed));
    JsonObject out = search(agent, JsonObject.of("limit", new BigInteger("100000000000000000000000")));
    assertThat(out.getInteger("count")).isEqualTo(1);
    assertThat(out.getJsonArray("entries").getJsonObject(0).getJsonArray("Tags")).containsExactly("x", "y");
    assertThat(db.fails(base, "log_search", agent, JsonObject.of("limit", 2.5))).isEqualTo("invalid input: limit must be an integer");
    assertThat(db.fails(base, "log_entry", agent, JsonObject.of("message", 42))).isEqualTo("invalid input: message must be a string");
  }

  @Test
  void anAgentSearchesOnlyItsOwnLog() {
    ToolCaller a = PacksFixture.newAgent("a");
    ToolCaller b = PacksFixture.newAgent("b");
    log(a, "secret plan of a");
    log(b, "b's note");
    assertThat(messages(search(b, new JsonObject()))).containsExactly("b's note");
    assertThat(messages(search(b, JsonObject.of("query", "secret")))).isEmpty();
    assertThat(messages(search(a, new JsonObject()))).containsExactly("secret plan of a");
  }

  @Test
  void aCallWithoutAnAgentIsRefused() {
    ToolCaller nobody = new ToolCaller("", null);
    assertThat(db.fails(base, "log_entry", nobody, JsonObject.of("message", "m"))).isEqualTo("this tool must be called by an agent");
    assertThat(db.fails(base, "log_search", nobody, new JsonObject())).isEqualTo("this tool must be called by an agent");
  }
}
