package dev.conclave.gateway.export;

import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.gateway.support.StoreFixture;
import dev.conclave.platform.auth.Principal;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;

import static dev.conclave.gateway.support.GatewayFixture.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /conversations/{key}/export} over real HTTP against a real ledger: the whole history as
 * NDJSON in the history route's format, resumable with {@code after}, and refused exactly as the
 * history route refuses.
 */
class ConversationExportHttpTest {

  private static final String BASE = "/api/v1/gateway/conversations/";
  /** More than two of the route's pages. */
  private static final int EVENTS = 2 * 200 + 37;

  private static StoreFixture db;
  private static GatewayFixture gw;
  private static WebClient web;
  private static String key;
  private static String ownerToken;
  private static String strangerToken;

  @BeforeAll
  static void start() {
    db = StoreFixture.start(2);
    gw = db.gateway();
    web = WebClient.create(db.vertx());
    Principal owner = gw.newMember("export-owner");
    ownerToken = gw.token(owner);
    strangerToken = gw.memberToken("export-stranger");
    key = "export-" + UUID.randomUUID().toString().substring(0, 8);
    try (RawAgent agent = gw.connect(key, gw.agentTokenOwnedBy("export-agent", owner.id()))) {
      List<LedgerEntry> entries = new ArrayList<>();
      for (int i = 1; i <= EVENTS; i++) {
        entries.add(Entries.inbound(UUID.randomUUID(), "tester", owner.id(), "message " + i + "\nwith a line break", Instant.now()));
      }
      await(db.pool().withTransaction(tx -> db.ledger().append(tx, key, key, entries)));
    }
  }

  @AfterAll
  static void stop() {
    web.close();
    db.close();
  }

  private static HttpResponse<Buffer> get(String token, String path) {
    return await(web.request(HttpMethod.GET, gw.node().httpPort(), "127.0.0.1", path)
      .putHeader("authorization", "Bearer " + token).send());
  }

  private static List<JsonObject> lines(HttpResponse<Buffer> r) {
    String body = r.bodyAsString();
    assertThat(body == null || body.isEmpty() || body.endsWith("\n")).as("every line ends in a newline").isTrue();
    List<JsonObject> out = new ArrayList<>();
    if (body != null && !body.isEmpty()) {
      for (String line : body.split("\n")) {
        out.add(new JsonObject(line));
      }
    }
    return out;
  }

  private static List<Long> seqs(List<JsonObject> lines) {
    return lines.stream().map(l -> l.getLong("seq")).toList();
  }

  @Test
  void aConversationOfMoreThanTwoPagesExportsEveryEventOnceInOrderInTheHistoryFormat() {
    HttpResponse<Buffer> r = get(ownerToken, BASE + key + "/export");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.getHeader("content-type")).isEqualTo("application/x-ndjson");
    assertThat(r.getHeader("transfer-encoding")).as("streamed, not buffered to a length").isEqualTo("chunked");
    List<JsonObject> lines = lines(r);
    assertThat(seqs(lines)).containsExactlyElementsOf(LongStream.rangeClosed(1, EVENTS).boxed().toList());
    JsonArray history = get(ownerToken, BASE + key + "/events?after=0&limit=500").bodyAsJsonObject().getJsonArray("events");
    assertThat(lines).as("each line is the history route's event").containsExactlyElementsOf(
      history.stream().map(JsonObject.class::cast).toList());
    assertThat(lines.get(0).getJsonObject("event").encode()).contains("message 1\\nwith a line break");
  }

  @Test
  void afterResumesRightAfterTheLastLineAClientRead() {
    List<JsonObject> lines = lines(get(ownerToken, BASE + key + "/export?after=300"));
    assertThat(seqs(lines)).containsExactlyElementsOf(LongStream.rangeClosed(301, EVENTS).boxed().toList());
    HttpResponse<Buffer> done = get(ownerToken, BASE + key + "/export?after=" + EVENTS);
    assertThat(done.statusCode()).isEqualTo(200);
    assertThat(lines(done)).as("nothing after the last event").isEmpty();
  }

  @Test
  void anAdminExportsAnyConversation() {
    assertThat(seqs(lines(get(gw.node().adminToken(), BASE + key + "/export?after=" + (EVENTS - 2))))).containsExactly((long) EVENTS - 1, (long) EVENTS);
  }

  @Test
  void anotherMemberIsRefusedAsTheHistoryRouteRefusesThem() {
    HttpResponse<Buffer> history = get(strangerToken, BASE + key + "/events");
    HttpResponse<Buffer> export = get(strangerToken, BASE + key + "/export");
    assertThat(history.statusCode()).isEqualTo(403);
    assertThat(export.statusCode()).isEqualTo(history.statusCode());
    assertThat(export.bodyAsJsonObject().getString("code")).isEqualTo(history.bodyAsJsonObject().getString("code"));
    assertThat(export.bodyAsString()).doesNotContain("message 1");
  }

  @Test
  void anUnknownKeyIsAnsweredAsTheHistoryRouteAnswersIt() {
    String unknown = "no-such-conversation-" + UUID.randomUUID();
    HttpResponse<Buffer> history = get(ownerToken, BASE + unknown + "/events");
    HttpResponse<Buffer> export = get(ownerToken, BASE + unknown + "/export");
    assertThat(export.statusCode()).isEqualTo(history.statusCode()).isEqualTo(403);
    assertThat(export.bodyAsJsonObject().getString("code")).isEqualTo(history.bodyAsJsonObject().getString("code"));
    HttpResponse<Buffer> adminHistory = get(gw.node().adminToken(), BASE + unknown + "/events");
    HttpResponse<Buffer> adminExport = get(gw.node().adminToken(), BASE + unknown + "/export");
    assertThat(adminHistory.statusCode()).isEqualTo(200);
    assertThat(adminHistory.bodyAsJsonObject().getJsonArray("events")).isEmpty();
    assertThat(adminExport.statusCode()).isEqualTo(200);
    assertThat(lines(adminExport)).isEmpty();
  }

  @Test
  void aGarbageAfterIsABadRequestWithTheHistoryRoutesCode() {
    for (String after : List.of("abc", "-1", "1.5", "", "99999999999999999999")) {
      HttpResponse<Buffer> r = get(ownerToken, BASE + key + "/export?after=" + after);
      assertThat(r.statusCode()).as("after=" + after).isEqualTo(400);
      assertThat(r.getHeader("content-type")).startsWith("application/problem+json");
      assertThat(r.bodyAsJsonObject().getString("code")).isEqualTo("field_invalid");
      assertThat(r.bodyAsJsonObject().getString("detail")).contains("after");
    }
  }
}
