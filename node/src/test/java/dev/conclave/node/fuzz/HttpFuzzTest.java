package dev.conclave.node.fuzz;

import dev.conclave.node.fuzz.FuzzNode.Answer;
import dev.conclave.node.fuzz.FuzzNode.Caller;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.RouteTable.Route;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP JSON on every route of the route table (all three roles), plus the console's session
 * endpoint: generated path parameters, query strings, content types, callers and bodies (mutations
 * of a well-formed request, malformed JSON, non-objects, deep nesting, huge numbers, NUL and invalid
 * UTF-8). Every answer must be below 500, a refusal must be {@code application/problem+json}, no
 * answer may name a Java class, and nothing may be logged with a stack trace or at ERROR.
 */
class HttpFuzzTest {

  private static final String SURFACE = "http";
  private static final String GW = "/api/v1/gateway";
  private static final Pattern PARAM = Pattern.compile(":([A-Za-z]+)");

  private final FuzzNode f = FuzzNode.get();
  private final Strays strays = new Strays();

  /** A route to aim at: its method and path template, who it admits, and a well-formed body for it. */
  record Target(HttpMethod method, String path, Caller caller, JsonObject template) {
    String key() {
      return method.name() + " " + path;
    }
  }

  /** One generated request. */
  record HttpCase(String route, HttpMethod method, String uri, String contentType, Caller caller, byte[] body) {
    @Override
    public String toString() {
      return method.name() + " " + Findings.abbreviate(uri, 300) + " as " + caller + (contentType == null ? " (no content-type)"
        : " content-type '" + contentType + "'") + " body " + Hostile.show(body) + "   [route " + route + "]";
    }
  }

  @Property(tries = 2500, seed = FuzzSeeds.SEED, shrinking = ShrinkingMode.BOUNDED, generation = GenerationMode.RANDOMIZED)
  void everyRouteAnswersMalformedInputWithAProblemNeverA5xx(@ForAll("requests") HttpCase c) {
    strays.collect(f.logs);
    Answer a = f.send(c.method(), c.uri(), c.caller(), c.contentType(), c.body());
    Findings found = new Findings(SURFACE, c.route(), c);
    String contentType = a.headers().get("content-type");
    if (a.status() < 0) {
      found.add("no answer within " + FuzzNode.NO_ANSWER_SECONDS + " s", a.body());
    } else if (a.status() >= 500) {
      found.add(a.status() + " " + code(a.body()), a.status() + " " + contentType + " " + Findings.abbreviate(a.body(), 600));
    } else if (a.status() >= 400 && !c.route().endsWith(" /mcp") && c.method() != HttpMethod.HEAD && a.status() != 414 && a.status() != 431) {
      JsonObject problem = problem(a.body());
      if (contentType == null || !contentType.startsWith("application/problem+json") || problem == null
        || !Integer.valueOf(a.status()).equals(problem.getValue("status"))) {
        found.add(a.status() + " is not a problem+json answer", "content-type " + contentType + ", body "
          + Findings.abbreviate(a.body(), 400));
      }
    }
    if (a.status() >= 0) {
      found.leaks("body", a.body());
      a.headers().forEach(h -> found.leaks("header " + h.getKey(), h.getValue()));
    }
    found.logs(f.logs.drain());
    found.close();
  }

  @AfterProperty
  void nodeIsStillWell() {
    strays.endOfProperty(SURFACE, f);
  }

  private static String code(String body) {
    JsonObject p = problem(body);
    return p == null ? "(not JSON)" : "code=" + p.getValue("code");
  }

  private static JsonObject problem(String body) {
    try {
      return new JsonObject(body);
    } catch (RuntimeException e) {
      return null;
    }
  }

  // ---- generation ------------------------------------------------------------------------------

  @Provide
  Arbitrary<HttpCase> requests() {
    List<Target> targets = new ArrayList<>();
    for (Route r : f.routes("http")) {
      HttpMethod m = HttpMethod.valueOf(r.method());
      targets.add(new Target(m, r.path(), caller(r.audience()), templates().getOrDefault(m.name() + " " + r.path(), new JsonObject())));
    }
    // the console's login, outside /api/ and the route table
    targets.add(new Target(HttpMethod.POST, "/auth/session", Caller.MEMBER, new JsonObject().put("token", f.tokens.get(Caller.MEMBER))));
    targets.add(new Target(HttpMethod.GET, "/auth/session", Caller.MEMBER, new JsonObject()));
    return Arbitraries.of(targets).flatMap(t -> Combinators.combine(method(t), uri(t), contentType(), callerFor(t), body(t))
      .as((method, uri, ct, caller, body) -> new HttpCase(t.key(), method, uri, ct, caller, body)));
  }

  private static Caller caller(Audience audience) {
    return switch (audience) {
      case PACKS -> Caller.PACK;
      case MCP_TOKENS -> Caller.MCP;
      default -> Caller.ADMIN;
    };
  }

  private static Arbitrary<HttpMethod> method(Target t) {
    return Arbitraries.frequencyOf(Tuple.of(12, Arbitraries.just(t.method())),
      Tuple.of(1, Arbitraries.of(HttpMethod.GET, HttpMethod.POST, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.PATCH, HttpMethod.OPTIONS,
        HttpMethod.HEAD)));
  }

  private static Arbitrary<Caller> callerFor(Target t) {
    return Arbitraries.frequencyOf(Tuple.of(12, Arbitraries.just(t.caller())),
      Tuple.of(1, Arbitraries.of(Caller.NOBODY, Caller.MEMBER, Caller.STRANGER, Caller.AGENT, Caller.PACK, Caller.MCP, Caller.BRIDGE,
        Caller.GARBAGE_BEARER, Caller.BASIC)));
  }

  private static Arbitrary<String> contentType() {
    return Arbitraries.frequencyOf(Tuple.of(14, Arbitraries.just("application/json")),
      Tuple.of(1, Arbitraries.of("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=fz",
        "multipart/form-data", "application/json; charset=utf-16", "application/json; charset=nonsense", "application/problem+json",
        "application/octet-stream", "*/*", ";;;", "application/x-www-form-urlencoded; charset=utf-8")),
      Tuple.of(1, Arbitraries.just(null)));
  }

  private Arbitrary<String> uri(Target t) {
    Matcher m = PARAM.matcher(t.path());
    List<Arbitrary<String>> params = new ArrayList<>();
    List<String> names = new ArrayList<>();
    while (m.find()) {
      names.add(m.group(1));
      params.add(pathParam(t.path(), m.group(1)));
    }
    Arbitrary<String> query = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just("")),
      Tuple.of(2, queryPair().list().ofMinSize(1).ofMaxSize(4).map(l -> "?" + String.join("&", l))),
      Tuple.of(1, Arbitraries.of("?", "?&", "?=", "?%", "?%zz", "?a=%", "?a=%zz", "?a=%C3%28", "?%00=%00", "?a&a&a", "?limit=1&limit=2",
        "?a=" + "b".repeat(5000))));
    Arbitrary<List<String>> values = params.isEmpty() ? Arbitraries.just(List.of()) : Combinators.combine(params).as(l -> l);
    return Combinators.combine(values, query).as((vals, q) -> {
      String path = t.path();
      for (int i = 0; i < names.size(); i++) {
        path = path.replaceFirst(":" + names.get(i) + "(?=/|$)", Matcher.quoteReplacement(vals.get(i)));
      }
      return path + q;
    });
  }

  /** A path parameter: a name the node knows now and then (to get past the lookup), mostly hostile. */
  private Arbitrary<String> pathParam(String path, String name) {
    List<String> known = new ArrayList<>(List.of(FuzzNode.AGENT_ID, UUID.randomUUID().toString(), "00000000-0000-0000-0000-000000000000"));
    if (path.startsWith("/api/v1/tasks")) {
      known.add(FuzzNode.TASK_ID);
    }
    if (path.startsWith("/api/v1/agents")) {
      known.add(FuzzNode.SWARM_AGENT);
    }
    if (name.equals("name")) {
      known.add("FZ_SECRET");
    }
    return Arbitraries.frequencyOf(
      Tuple.of(3, Arbitraries.of(known)),
      Tuple.of(5, Hostile.strings().filter(s -> !s.isEmpty()).map(HttpFuzzTest::encode)),
      Tuple.of(2, Arbitraries.of("%00", "%", "%zz", "%2F", "%2f..%2f", "%2e%2e", "..", ".", "%C3%28", "%ED%A0%80", "%FF", "%F4%90%80%80",
        "-1", "0", "9223372036854775808", "1e999", "null", "%25", "a%00b", "%u0041", "%0d%0ax-injected:%201", "~", "*", "%3B", ";a=b")),
      Tuple.of(1, Arbitraries.integers().between(256, 9000).map(n -> "p".repeat(n))));
  }

  private static Arbitrary<String> queryPair() {
    Arbitrary<String> key = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.of("limit", "after", "before", "status", "priority", "type",
      "q", "agentId", "protocolVersion", "assignedAgent", "branch", "since", "kind", "cursor", "offset", "principal", "action", "outcome",
      "from", "to", "from", "until", "includeArchived")), Tuple.of(1, Hostile.strings().map(HttpFuzzTest::encode)));
    Arbitrary<String> value = Arbitraries.frequencyOf(
      Tuple.of(3, Arbitraries.of("", "0", "-1", "1", "500", "501", "2147483648", "-9223372036854775809", "99999999999999999999999", "1.5",
        "1e999", "NaN", "true", "ready,claimed", ",,,", "high", "%00", "%zz", "%", "2024-13-45T99:99:99Z", "0000-00-00", "1.0", "2.0",
        "fz-agent", "fz-swarm")),
      Tuple.of(3, Hostile.strings().map(HttpFuzzTest::encode)));
    return Combinators.combine(key, value).as((k, v) -> k + "=" + v);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static Arbitrary<byte[]> body(Target t) {
    Arbitrary<byte[]> mutated = Hostile.mutations().map(ms -> Hostile.mutate(t.template(), ms).getBytes(StandardCharsets.UTF_8));
    boolean bodiless = t.method() == HttpMethod.GET || t.method() == HttpMethod.DELETE;
    return Arbitraries.frequencyOf(
      Tuple.of(bodiless ? 2 : 10, mutated),
      Tuple.of(bodiless ? 1 : 4, Hostile.malformedDocuments()),
      Tuple.of(bodiless ? 6 : 1, Arbitraries.just(null)));
  }

  // ---- well-formed bodies, one per route that takes one -------------------------------------------

  private Map<String, JsonObject> templates() {
    Map<String, JsonObject> t = new HashMap<>();
    JsonObject v1 = new JsonObject().put("protocolVersion", "1.0");
    String agent = FuzzNode.SWARM_AGENT;
    t.put("POST " + GW + "/requests/:id/cancel", new JsonObject().put("reason", "fuzz"));
    t.put("POST " + GW + "/agents/:agentId/inject", new JsonObject().put("content", "note").put("idempotencyKey", "fz-1"));
    t.put("POST " + GW + "/conversations/:key/messages", new JsonObject().put("content", "hello").put("idempotencyKey", "fz-1"));
    t.put("POST " + GW + "/approvals", new JsonObject().put("agentId", FuzzNode.AGENT_ID).put("toolId", "t-1").put("approved", true));
    t.put("POST " + GW + "/questions/:questionId/answer", new JsonObject().put("agentId", FuzzNode.AGENT_ID)
      .put("selected", new JsonArray().add("yes")));
    t.put("POST " + GW + "/principals", new JsonObject().put("type", "client").put("displayName", "fz-created")
      .put("roles", new JsonArray().add("member")));
    t.put("POST " + GW + "/principals/:id/tokens", new JsonObject().put("ttlSeconds", 3600).put("purpose", "api"));
    t.put("POST " + GW + "/agents/:agentId/grants", new JsonObject().put("principalId", f.memberId.toString()));
    t.put("PUT " + GW + "/secrets/global/:name", new JsonObject().put("value", "s3cret"));
    t.put("PUT " + GW + "/secrets/agents/:agentId/:name", new JsonObject().put("value", "s3cret"));
    t.put("POST /api/v1/tasks", new JsonObject().put("title", "fuzz").put("description", "d").put("priority", "high").put("type", "code")
      .put("requiredSkills", new JsonArray().add("fuzzing")).put("dependencies", new JsonArray().add(FuzzNode.TASK_ID))
      .put("files", new JsonArray().add("src/a.ts")).put("estimatedMinutes", 30).put("branch", "main").put("maxRetries", 2));
    t.put("POST /api/v1/tasks/:id/cancel", new JsonObject().put("reason", "fuzz"));
    t.put("POST /api/v1/tasks/bulk", new JsonObject().put("action", "cancel").put("reason", "fuzz")
      .put("filter", new JsonObject().put("ids", new JsonArray().add(FuzzNode.TASK_ID)).put("status", new JsonArray().add("ready"))
        .put("skill", "fuzzing").put("agent", "fz-reg").put("olderThanMinutes", 5)));
    t.put("POST /api/v1/tasks/:id/retry", new JsonObject());
    t.put("POST /api/v1/schedules", new JsonObject().put("name", "fz-schedule").put("cron", "*/5 * * * *").put("timezone", "Europe/Berlin")
      .put("task", new JsonObject().put("title", "fuzz").put("priority", "low").put("requiredSkills", new JsonArray().add("fuzzing"))));
    t.put("POST /api/v1/tasks/:id/review", new JsonObject().put("decision", "approve").put("reason", "fine"));
    t.put("POST /api/v1/agents/:id/commands", new JsonObject().put("type", "PING").put("payload", new JsonObject()));
    t.put("POST /api/v1/agents/register", v1.copy().put("operation", "REGISTER").put("agent", new JsonObject().put("id", "fz-reg")
      .put("name", "fuzz").put("type", "claude-code").put("capabilities", new JsonObject().put("skills", new JsonArray().add("fuzzing"))
        .put("maxTaskMinutes", 60).put("canRunTests", true).put("canRunBuild", true).put("canAccessBrowser", false)))
      .put("machine", new JsonObject().put("id", "m1").put("hostname", "localhost").put("pid", 4242)));
    t.put("POST /api/v1/agents/:id/heartbeat", v1.copy().put("agentId", agent).put("status", "idle")
      .put("currentTask", FuzzNode.TASK_ID));
    t.put("POST /api/v1/tasks/claim", v1.copy().put("agentId", agent).put("filter", new JsonObject()
      .put("priorities", new JsonArray().add("high")).put("types", new JsonArray().add("code"))));
    t.put("POST /api/v1/tasks/:id/progress", v1.copy().put("agentId", agent).put("progress", new JsonObject()
      .put("phase", "implementing").put("percentComplete", 10).put("description", "working")));
    t.put("POST /api/v1/tasks/:id/complete", v1.copy().put("agentId", agent).put("result", new JsonObject()
      .put("filesCreated", new JsonArray()).put("filesModified", new JsonArray().add("src/a.ts")).put("filesDeleted", new JsonArray())
      .put("summary", "done").put("learnings", new JsonArray().add("a lesson"))).put("qualityMetrics", new JsonObject()
      .put("testsRan", 10).put("testsPassed", 10).put("lintErrors", 0).put("typeErrors", 0).put("buildSuccess", true)));
    t.put("POST /api/v1/tasks/:id/fail", v1.copy().put("agentId", agent).put("failure", new JsonObject().put("type", "task_error")
      .put("message", "broke").put("details", "").put("recoverable", true)));
    t.put("POST /api/v1/messages", v1.copy().put("agentId", agent).put("message", new JsonObject().put("to", agent)
      .put("type", "info.discovery").put("payload", new JsonObject().put("n", 1)).put("ackRequired", true)));
    t.put("POST /api/v1/messages/:id/ack", v1.copy().put("agentId", agent));
    t.put("POST /api/v1/leases/acquire", v1.copy().put("agentId", agent).put("taskId", FuzzNode.TASK_ID).put("filePath", "src/a.ts")
      .put("durationMs", 60_000));
    t.put("POST /api/v1/leases/release", v1.copy().put("agentId", agent).put("filePath", "src/a.ts"));
    t.put("POST /mcp", new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize").put("params", new JsonObject()
      .put("protocolVersion", "2025-06-18").put("capabilities", new JsonObject())
      .put("clientInfo", new JsonObject().put("name", "fuzz").put("version", "1"))));
    return t;
  }

}
