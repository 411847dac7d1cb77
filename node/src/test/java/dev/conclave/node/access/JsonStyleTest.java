package dev.conclave.node.access;

import dev.conclave.platform.access.RouteTable.Route;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every HTTP route of a node (all three roles), called with real data by its access probe, by a
 * caller it admits, one it refuses and nobody: every JSON answer follows the one style the README
 * names ({@link JsonStyle}), and the fixture's principals and agent go by {@code principalId} and
 * {@code agentId} wherever an answer shows them. The places where member names are the caller's own data are declared
 * here, each with its reason; so are the routes that speak another protocol's JSON.
 */
class JsonStyleTest {

  /** Routes whose JSON is another specification's: not HTTP answers of ours. */
  private static final Map<String, String> OTHER_PROTOCOLS = Map.of(
    "http POST /mcp", "MCP is JSON-RPC, with its own specification's names",
    "http DELETE /mcp", "MCP is JSON-RPC, with its own specification's names",
    "http GET /api/v1/sessions", "the session protocol (seed 004) is a WebSocket, snake_case by its own specification");

  /** Per route: the places in its answers whose values are maps keyed by user data, and why. */
  private static final Map<String, Map<String, String>> USER_KEYED = Map.of(
    "http GET /api/v1/messages", Map.of("messages[].payload", "a swarm message's payload is whatever JSON its sender chose (seed 001)"));

  /**
   * Per route: the places where a gateway agent's id is a swarm agent's bare {@code id}, and why. A
   * swarm agent takes its gateway agent's id (docs/swarm-agents.md), and the swarm shows an agent in
   * the shape it registered with.
   */
  private static final Map<String, Map<String, String>> SPEC_IDS = Map.of(
    "http GET /api/v1/agents", Map.of("agents[].id",
      "a swarm agent as it registered: the Jetpack protocol's RegisterRequest names it agent.id (seed 001)"));

  /** Names of points in time that another specification chose, and which. */
  private static final Map<String, String> OTHER_TIME_NAMES = Map.of(
    "timestamp", "the Jetpack protocol's HEARTBEAT answer (seed 001), and Coven's events in protobuf's JSON form",
    "heldUntil", "the Jetpack protocol's refused ACQUIRE_LEASE (seed 001)");

  private static MatrixFixture f;
  private static Map<String, Probes.Probe> probes;

  @BeforeAll
  static void start() {
    f = new MatrixFixture();
    probes = Probes.all();
  }

  @AfterAll
  static void stop() {
    f.observe(e -> { });
    f.close();
  }

  @Test
  void everyJsonAnswerIsCompactCamelCaseJson() {
    // what creates comes before what lists and what deletes after, so that lists have entries to show
    List<Route> routes = f.node.runtime().context().edge().routes().all().stream().filter(r -> r.surface().equals("http"))
      .sorted(Comparator.comparingInt(r -> List.of("POST", "PUT", "GET", "DELETE").indexOf(r.method()))).toList();
    List<MatrixFixture.Exchange> seen = new ArrayList<>();
    f.observe(seen::add);
    Set<String> probed = new TreeSet<>();
    for (Route route : routes) {
      if (OTHER_PROTOCOLS.containsKey(route.key())) {
        continue;
      }
      Probes.Probe probe = probes.get(route.key());
      assertThat(probe).as("a probe for " + route.key() + " (AuthorizationMatrixTest)").isNotNull();
      for (Who who : callers(probe)) {
        probe.run().apply(f, who);
      }
      probed.add(route.key());
    }
    // answers outside the route table: the console's login, health, an unknown route
    f.send(HttpMethod.POST, "/auth/session", new JsonObject().put("token", f.tokens.get(Who.ADMIN)), Who.NOBODY, Map.of());
    f.send(HttpMethod.POST, "/auth/session", new JsonObject().put("token", "not a token"), Who.NOBODY, Map.of());
    f.send(HttpMethod.GET, "/health/live", null, Who.NOBODY, Map.of());
    f.send(HttpMethod.GET, "/health/ready", null, Who.NOBODY, Map.of());
    f.send(HttpMethod.GET, "/api/v1/no-such-route", null, Who.ADMIN, Map.of());
    f.observe(e -> { });

    // the ids the fixture made, by the name they go by
    Map<String, String> ids = new java.util.HashMap<>();
    f.principals.values().forEach(p -> ids.put(p.toString(), "principalId"));
    ids.put(MatrixFixture.AGENT_ID, "agentId");
    Set<String> wrong = new TreeSet<>();
    Set<String> met = new TreeSet<>();
    Set<String> answered = new TreeSet<>();
    for (MatrixFixture.Exchange e : seen) {
      Optional<Route> route = routeOf(routes, e);
      String key = route.map(Route::key).orElse("http " + e.method().name() + " " + e.path().split("\\?", 2)[0]);
      if (OTHER_PROTOCOLS.containsKey(key)) {
        continue;
      }
      if (e.body() != null && !e.body().isEmpty()) {
        answered.add(key);
      }
      Set<String> userKeyed = USER_KEYED.getOrDefault(key, Map.of()).keySet();
      Set<String> specIds = SPEC_IDS.getOrDefault(key, Map.of()).keySet();
      Set<String> metHere = new TreeSet<>();
      for (String problem : checkAnswer(e, userKeyed, ids, specIds, metHere)) {
        wrong.add(key + " (" + e.status() + "): " + problem);
      }
      metHere.forEach(place -> met.add(key + " " + place));
    }
    assertThat(answered).as("routes whose JSON answers were seen").containsAll(probed);
    assertThat(wrong).as("JSON answers that do not follow the style (README, \"The JSON style\")").isEmpty();
    Set<String> declared = new TreeSet<>();
    USER_KEYED.forEach((route, places) -> places.keySet().forEach(place -> declared.add(route + " " + place)));
    SPEC_IDS.forEach((route, places) -> places.keySet().forEach(place -> declared.add(route + " " + place)));
    assertThat(met).as("the user-keyed places and spec-named ids declared here that the answers had (a declaration nothing needs goes)")
      .isEqualTo(declared);
  }

  /**
   * The answer's problems with the style. A conversation's export answers NDJSON (one event a line,
   * docs/gateway.md): each of its lines is held to the style as a JSON answer of its own.
   */
  private static List<String> checkAnswer(MatrixFixture.Exchange e, Set<String> userKeyed, Map<String, String> ids, Set<String> specIds,
                                          Set<String> metHere) {
    if (e.status() == 200 && e.contentType() != null && e.contentType().startsWith("application/x-ndjson")) {
      List<String> problems = new ArrayList<>();
      for (String line : e.body().split("\n")) {
        if (!line.isEmpty()) {
          problems.addAll(JsonStyle.check(200, "application/json", line, userKeyed, OTHER_TIME_NAMES.keySet(), ids, specIds, metHere));
        }
      }
      return problems;
    }
    return JsonStyle.check(e.status(), e.contentType(), e.body(), userKeyed, OTHER_TIME_NAMES.keySet(), ids, specIds, metHere);
  }

  /** Who a probe calls with: one caller it admits (an admin where it may), nobody, and one it refuses. */
  private static List<Who> callers(Probes.Probe probe) {
    List<Who> out = new ArrayList<>();
    out.add(probe.allowed().contains(Who.ADMIN) ? Who.ADMIN : probe.allowed().stream().min(Comparator.naturalOrder()).orElseThrow());
    out.add(Who.NOBODY);
    Set.of(Who.MEMBER_WITHOUT_ACCESS, Who.AGENT).stream().filter(w -> !probe.allowed().contains(w)).min(Comparator.naturalOrder())
      .ifPresent(out::add);
    return out;
  }

  /** The declared route a call went to: the one whose pattern matches its path with the fewest parameters. */
  private static Optional<Route> routeOf(List<Route> routes, MatrixFixture.Exchange e) {
    String path = e.path().split("\\?", 2)[0];
    return routes.stream().filter(r -> r.method().equals(e.method().name()) && pattern(r.path()).matcher(path).matches())
      .min(Comparator.comparingLong(r -> r.path().chars().filter(c -> c == ':').count()));
  }

  private static Pattern pattern(String template) {
    return Pattern.compile(Pattern.quote(template).replaceAll(":[A-Za-z]+", "\\\\E[^/]+\\\\Q"));
  }
}
