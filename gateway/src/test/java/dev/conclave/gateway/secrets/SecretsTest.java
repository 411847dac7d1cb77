package dev.conclave.gateway.secrets;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.Event;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.postgresql.PGConnection;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.helpers.MessageFormatter;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Secrets end to end on a real node: admins set them over HTTP, each agent's Welcome carries the
 * globals overridden by its own, nobody else can touch them, and the values exist nowhere else:
 * not in listings, problems, the database (only ciphertext), the logs or the conversation ledger.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecretsTest {

  private static final String BASE = "/api/v1/gateway/secrets";
  // random per run, so a match can only be the value itself
  private static final String GLOBAL_API = "glob-api-" + UUID.randomUUID();
  private static final String GLOBAL_SHARED = "glob-shared-" + UUID.randomUUID();
  private static final String ALPHA_API = "alpha-api-" + UUID.randomUUID();
  private static final String ALPHA_ONLY = "alpha-only-" + UUID.randomUUID();
  private static final String REJECTED = "rejected-" + UUID.randomUUID();
  private static final List<String> VALUES = List.of(GLOBAL_API, GLOBAL_SHARED, ALPHA_API, ALPHA_ONLY, REJECTED);

  private static final LogCapture LOGS = new LogCapture();
  private static final Map<String, String> AGENT_TOKENS = new java.util.concurrent.ConcurrentHashMap<>();
  private static GatewayFixture gw;
  private static WebClient http;
  private static String admin;
  private static String member;

  @BeforeAll
  static void start() {
    LOGS.install();
    gw = GatewayFixture.start();
    http = WebClient.create(gw.vertx());
    admin = gw.node().adminToken();
    member = gw.memberToken("secrets-member");
    assertThat(put(BASE + "/global/API_KEY", GLOBAL_API, admin).statusCode()).isEqualTo(200);
    assertThat(put(BASE + "/global/SHARED_TOKEN", GLOBAL_SHARED, admin).statusCode()).isEqualTo(200);
    assertThat(put(BASE + "/agents/alpha/API_KEY", ALPHA_API, admin).statusCode()).isEqualTo(200);
    assertThat(put(BASE + "/agents/alpha/ALPHA_ONLY", ALPHA_ONLY, admin).statusCode()).isEqualTo(200);
  }

  @AfterAll
  static void stop() {
    try {
      http.close();
      gw.close();
    } finally {
      LOGS.remove();
    }
  }

  @Test
  @Order(1)
  void anAgentsWelcomeCarriesTheGlobalsOverriddenByItsOwnAndNoOneElses() {
    assertThat(welcome("alpha").getSecretsMap()).isEqualTo(Map.of(
      "API_KEY", ALPHA_API, "SHARED_TOKEN", GLOBAL_SHARED, "ALPHA_ONLY", ALPHA_ONLY));
    assertThat(welcome("beta").getSecretsMap()).isEqualTo(Map.of("API_KEY", GLOBAL_API, "SHARED_TOKEN", GLOBAL_SHARED));
  }

  @Test
  @Order(2)
  void aSetAnswersWithMetadataAndTheListingShowsNamesOnly() {
    HttpResponse<Buffer> set = put(BASE + "/agents/gamma/TEMP", ALPHA_ONLY + "-gamma", admin);
    assertThat(set.statusCode()).isEqualTo(200);
    JsonObject answer = set.bodyAsJsonObject();
    assertThat(answer.fieldNames()).containsExactlyInAnyOrder("scope", "agentId", "name", "updatedAt", "updatedBy");
    assertThat(answer.getString("updatedBy")).isEqualTo(adminPrincipal());

    HttpResponse<Buffer> listed = send(http.get(gw.node().httpPort(), "127.0.0.1", BASE), admin, null);
    assertThat(listed.statusCode()).isEqualTo(200);
    assertThat(listed.bodyAsString()).doesNotContain(VALUES);
    JsonArray secrets = listed.bodyAsJsonObject().getJsonArray("secrets");
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < secrets.size(); i++) {
      JsonObject s = secrets.getJsonObject(i);
      assertThat(Set.of("scope", "agentId", "name", "updatedAt", "updatedBy")).containsAll(s.fieldNames());
      rows.add(s.getString("scope") + ":" + s.getString("agentId", "") + ":" + s.getString("name"));
    }
    assertThat(rows).containsExactly("global::API_KEY", "global::SHARED_TOKEN", "agent:alpha:ALPHA_ONLY", "agent:alpha:API_KEY",
      "agent:gamma:TEMP");

    assertThat(delete(BASE + "/agents/gamma/TEMP", admin).statusCode()).isEqualTo(200);
    HttpResponse<Buffer> again = delete(BASE + "/agents/gamma/TEMP", admin);
    assertThat(again.statusCode()).isEqualTo(404);
    assertThat(again.bodyAsJsonObject().getString("code")).isEqualTo("secret_not_found");
    assertThat(welcome("gamma").getSecretsMap()).doesNotContainKey("TEMP");
  }

  @Test
  @Order(3)
  void deletingAnAgentsOwnValueBringsBackTheGlobalOne() {
    assertThat(put(BASE + "/agents/delta/API_KEY", ALPHA_API, admin).statusCode()).isEqualTo(200);
    assertThat(welcome("delta").getSecretsMap()).containsEntry("API_KEY", ALPHA_API);
    assertThat(delete(BASE + "/agents/delta/API_KEY", admin).statusCode()).isEqualTo(200);
    assertThat(welcome("delta").getSecretsMap()).containsEntry("API_KEY", GLOBAL_API);
    assertThat(put(BASE + "/global/DOOMED", "x", admin).statusCode()).isEqualTo(200);
    assertThat(delete(BASE + "/global/DOOMED", admin).statusCode()).isEqualTo(200);
    assertThat(welcome("delta").getSecretsMap()).doesNotContainKey("DOOMED");
  }

  @Test
  @Order(4)
  void membersAndAgentsAreRefusedOnEveryRouteAndChangeNothing() {
    String agent = gw.agentToken("secrets-agent");
    for (String token : List.of(member, agent)) {
      List<HttpResponse<Buffer>> answers = List.of(
        send(http.get(gw.node().httpPort(), "127.0.0.1", BASE), token, null),
        put(BASE + "/global/API_KEY", REJECTED, token),
        put(BASE + "/agents/alpha/API_KEY", REJECTED, token),
        put(BASE + "/agents/beta/NEW_ONE", REJECTED, token),
        delete(BASE + "/global/SHARED_TOKEN", token),
        delete(BASE + "/agents/alpha/ALPHA_ONLY", token));
      for (HttpResponse<Buffer> answer : answers) {
        assertThat(answer.statusCode()).isEqualTo(403);
        assertThat(answer.bodyAsJsonObject().getString("code")).isEqualTo("admin_required");
        assertThat(answer.bodyAsString()).doesNotContain(VALUES);
      }
    }
    assertThat(welcome("alpha").getSecretsMap()).isEqualTo(Map.of(
      "API_KEY", ALPHA_API, "SHARED_TOKEN", GLOBAL_SHARED, "ALPHA_ONLY", ALPHA_ONLY));
    assertThat(welcome("beta").getSecretsMap()).doesNotContainKey("NEW_ONE");
  }

  @Test
  @Order(5)
  void badNamesAndValuesAreClear400sThatNeverQuoteTheValue() {
    assertProblem(put(BASE + "/global/lower_case", REJECTED, admin), 400, "secret_name_invalid");
    assertProblem(put(BASE + "/global/9LIVES", REJECTED, admin), 400, "secret_name_invalid");
    assertProblem(put(BASE + "/global/" + "N".repeat(129), REJECTED, admin), 400, "secret_name_invalid");
    assertProblem(put(BASE + "/global/TOO_BIG", REJECTED + "x".repeat(64 * 1024), admin), 400, "secret_value_too_large");
    assertProblem(put(BASE + "/agents/alpha/NUL", REJECTED + "\0", admin), 400, "secret_value_invalid");
    assertProblem(send(http.put(gw.node().httpPort(), "127.0.0.1", BASE + "/global/NO_VALUE"), admin, new JsonObject()), 400,
      "secret_value_required");
    assertProblem(send(http.put(gw.node().httpPort(), "127.0.0.1", BASE + "/global/NUMBER"), admin, new JsonObject().put("value", 42)), 400,
      "secret_value_required");
    HttpResponse<Buffer> garbage = await(http.put(gw.node().httpPort(), "127.0.0.1", BASE + "/global/GARBAGE")
      .putHeader("authorization", "Bearer " + admin).putHeader("content-type", "application/json")
      .sendBuffer(Buffer.buffer("{\"value\": \"" + REJECTED + "\" oops")));
    assertProblem(garbage, 400, "secret_value_required");
    assertThat(put(BASE + "/global/EXACTLY_64_KIB", "y".repeat(64 * 1024), admin).statusCode()).isEqualTo(200);
    assertThat(delete(BASE + "/global/EXACTLY_64_KIB", admin).statusCode()).isEqualTo(200);
  }

  @Test
  @Order(6)
  void aValueMovedToAnotherNameInTheDatabaseFailsTheRegistrationNamingIt() {
    assertThat(put(BASE + "/agents/epsilon/REAL", ALPHA_ONLY, admin).statusCode()).isEqualTo(200);
    assertThat(put(BASE + "/agents/epsilon/DECOY", "decoy", admin).statusCode()).isEqualTo(200);
    TestDatabase.execute(gw.node().database(), "UPDATE auth.secrets d SET nonce = r.nonce, ciphertext = r.ciphertext FROM auth.secrets r "
      + "WHERE d.agent_id = 'epsilon' AND d.name = 'DECOY' AND r.agent_id = 'epsilon' AND r.name = 'REAL'");
    try (RawAgent agent = gw.agent(agentToken("epsilon"))) {
      agent.send(AgentMessage.newBuilder().setRegister(RawAgent.registration("epsilon")).build());
      RawAgent.End end = agent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.INTERNAL);
      assertThat(end.message()).contains("secret_unreadable").contains("DECOY").doesNotContain(VALUES);
    }
    assertThat(put(BASE + "/agents/epsilon/DECOY", "decoy", admin).statusCode()).isEqualTo(200);
    assertThat(welcome("epsilon").getSecretsMap()).isEqualTo(Map.of("API_KEY", GLOBAL_API, "SHARED_TOKEN", GLOBAL_SHARED,
      "REAL", ALPHA_ONLY, "DECOY", "decoy"));
  }

  @Test
  @Order(7)
  void theLedgerOfAConversationWithTheAgentHoldsNoValue() {
    try (RawAgent alpha = gw.agent(agentToken("alpha"))) {
      Welcome welcome = alpha.register(RawAgent.registration("alpha"));
      String requestId = gw.admin().sendOk("alpha", "what is in your environment?", "k-secrets-ledger");
      ServerMessage work = alpha.next();
      assertThat(work.getSendMessage().getRequestId()).isEqualTo(requestId);
      alpha.respond(requestId, MessageResponse.newBuilder().setText("I have " + welcome.getSecretsCount() + " variables"));
      alpha.respond(requestId, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      List<Event> events = List.of();
      for (int attempt = 0; attempt < 100 && events.stream().noneMatch(e -> e.getRawTransport().equals("done")); attempt++) {
        events = gw.admin().grpc().unary(ClientServiceGrpcClient.GetEvents, GetEventsRequest.newBuilder().setConversationKey("alpha")
          .setLimit(500).build(), gw.admin().authorization()).response().orElseThrow().getEventsList();
        sleep(50);
      }
      assertThat(events).extracting(Event::getRawTransport).contains("inbound", "text", "done");
      assertThat(events.toString()).doesNotContain(VALUES);
      assertThat(rows("SELECT * FROM gateway.events")).isNotEmpty().allSatisfy(row -> assertThat(row).doesNotContain(VALUES));
    }
  }

  @Test
  @Order(8)
  void aDumpOfTheDatabaseShowsOnlyCiphertext() throws Exception {
    assertThat(rows("SELECT scope, agent_id, name, encode(nonce, 'hex'), encode(ciphertext, 'hex') FROM auth.secrets"))
      .hasSizeGreaterThanOrEqualTo(4);
    byte[] dump = copyEveryTable();
    assertThat(dump.length).isGreaterThan(1000);
    assertNoValueIn(dump, "COPY of every table");
    byte[] pgDump = pgDump(gw.node().database());
    if (pgDump != null) {
      assertNoValueIn(pgDump, "pg_dump");
    }
  }

  @Test
  @Order(9)
  void noLogLineEverCarriedAValue() {
    assertThat(LOGS.lines()).as("log calls seen (any level)").hasSizeGreaterThan(20)
      .anySatisfy(line -> assertThat(line).contains("secrets: set scope=agent agent=alpha name=API_KEY"));
    assertThat(LOGS.lines()).allSatisfy(line -> assertThat(line).doesNotContain(VALUES));
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** Registers {@code agentId} (always as the same principal, so a new stream supersedes the last) and returns its Welcome. */
  private static Welcome welcome(String agentId) {
    try (RawAgent agent = gw.agent(agentToken(agentId))) {
      return agent.register(RawAgent.registration(agentId));
    }
  }

  private static String agentToken(String agentId) {
    return AGENT_TOKENS.computeIfAbsent(agentId, gw::agentToken);
  }

  private static String adminPrincipal() {
    return GatewayFixture.await(gw.node().runtime().context().tokens().authenticate(admin)).principalId().toString();
  }

  private static void assertProblem(HttpResponse<Buffer> answer, int status, String code) {
    assertThat(answer.statusCode()).isEqualTo(status);
    assertThat(answer.getHeader("content-type")).isEqualTo("application/problem+json");
    assertThat(answer.bodyAsJsonObject().getString("code")).isEqualTo(code);
    assertThat(answer.bodyAsString()).doesNotContain(VALUES);
  }

  private static HttpResponse<Buffer> put(String path, String value, String token) {
    return send(http.put(gw.node().httpPort(), "127.0.0.1", path), token, new JsonObject().put("value", value));
  }

  private static HttpResponse<Buffer> delete(String path, String token) {
    return send(http.delete(gw.node().httpPort(), "127.0.0.1", path), token, null);
  }

  private static HttpResponse<Buffer> send(HttpRequest<Buffer> request, String token, JsonObject body) {
    request.putHeader("authorization", "Bearer " + token);
    return await(body == null ? request.send() : request.sendJsonObject(body));
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Connection jdbc() throws Exception {
    PgUrl url = gw.node().database();
    return DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
  }

  /** Every row of a query, each as one line of text. */
  private static List<String> rows(String sql) {
    try (Connection c = jdbc(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          row.append(rs.getString(i)).append('|');
        }
        out.add(row.toString());
      }
      return out;
    } catch (Exception e) {
      throw new AssertionError(sql + ": " + e, e);
    }
  }

  /** What a database dump holds: every table of every schema, in COPY's text and binary formats. */
  private static byte[] copyEveryTable() throws Exception {
    ByteArrayOutputStream dump = new ByteArrayOutputStream();
    try (Connection c = jdbc()) {
      List<String> tables = new ArrayList<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT format('%I.%I', schemaname, tablename) "
        + "FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
      assertThat(tables).contains("auth.secrets", "auth.secrets_key_check", "gateway.events");
      var copy = c.unwrap(PGConnection.class).getCopyAPI();
      for (String table : tables) {
        copy.copyOut("COPY " + table + " TO STDOUT", dump);
        copy.copyOut("COPY " + table + " TO STDOUT (FORMAT binary)", dump);
      }
    }
    return dump.toByteArray();
  }

  /** pg_dump's output when a pg_dump that can read this server is installed; else null (the COPY dump stands). */
  private static byte[] pgDump(PgUrl url) throws Exception {
    ProcessBuilder builder = new ProcessBuilder("pg_dump", "--no-owner", "--dbname=" + url.full()).redirectErrorStream(false);
    Process process;
    try {
      process = builder.start();
    } catch (java.io.IOException notInstalled) {
      System.out.println("SecretsTest: no pg_dump on PATH; the COPY dump is the evidence");
      return null;
    }
    byte[] out = process.getInputStream().readAllBytes();
    String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      System.out.println("SecretsTest: pg_dump could not dump this server (" + err.strip() + "); the COPY dump is the evidence");
      return null;
    }
    assertThat(new String(out, StandardCharsets.UTF_8)).contains("CREATE TABLE auth.secrets");
    return out;
  }

  private static void assertNoValueIn(byte[] dump, String what) {
    String latin1 = new String(dump, StandardCharsets.ISO_8859_1);
    for (String value : VALUES) {
      byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
      assertThat(latin1).as(what + " holds a value as text").doesNotContain(new String(bytes, StandardCharsets.ISO_8859_1));
      assertThat(latin1.toLowerCase()).as(what + " holds a value in hex").doesNotContain(HexFormat.of().formatHex(bytes));
      assertThat(latin1).as(what + " holds a value in base64").doesNotContain(Base64.getEncoder().encodeToString(bytes).substring(0, 24));
    }
  }

  /**
   * Sees every logging call in the JVM (a turbo filter runs before the level check, so DEBUG and
   * TRACE calls that print nothing are seen too), formatted with their arguments and causes.
   */
  private static final class LogCapture extends TurboFilter {
    private final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();

    @Override
    public FilterReply decide(Marker marker, ch.qos.logback.classic.Logger logger, Level level, String format, Object[] params,
                              Throwable t) {
      if (format != null) {
        StringBuilder line = new StringBuilder(logger.getName()).append(' ').append(level).append(' ')
          .append(MessageFormatter.arrayFormat(format, params).getMessage());
        for (Throwable cause = t; cause != null; cause = cause.getCause()) {
          line.append(" | ").append(cause);
        }
        lines.add(line.toString());
      }
      return FilterReply.NEUTRAL;
    }

    void install() {
      LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
      context.addTurboFilter(this);
      start();
    }

    void remove() {
      LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
      context.getTurboFilterList().remove(this);
    }

    List<String> lines() {
      return List.copyOf(lines);
    }
  }
}
