package dev.conclave.node.fuzz;

import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.packs.app.PackHostRole;
import dev.conclave.platform.access.RouteTable.Route;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.RawHttp;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.swarm.app.CoordinatorRole;
import dev.conclave.swarm.config.SwarmSettings;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The one node the fuzz suite drives, with every role (gateway, coordinator, pack host), started once
 * per JVM and shared by the surfaces' properties: real PostgreSQL, real ports, the production boot.
 * It holds a caller of each kind, a connected agent ({@value #AGENT_ID}, owned by the member), a
 * registered swarm agent ({@value #SWARM_AGENT}) and a task ({@value #TASK_ID}), so that generated
 * requests can reach deep into the handlers, and it watches the node's log from before it starts.
 */
final class FuzzNode {

  static final String AGENT_ID = "fz-agent";
  static final String SWARM_AGENT = "fz-swarm";
  static final String TASK_ID = "fz-task";
  /** Small, so that oversized messages and request files are cheap to generate. */
  static final int MAX_MESSAGE_BYTES = 64 * 1024;
  static final int FILE_MAX_BYTES = 64 * 1024;
  /** How much more heap (after GC) than just after start-up the node may hold once a surface was fuzzed. */
  static final long HEAP_GROWTH_BOUND = 256L * 1024 * 1024;

  /** Who a generated request is sent as. */
  enum Caller {
    NOBODY, ADMIN, MEMBER, STRANGER, AGENT, PACK, MCP, BRIDGE, GARBAGE_BEARER, BASIC
  }

  /** The console's session cookie a generated request carries: of an {@code api} or a {@code bridge} token, or a bad one. */
  enum Cookie {
    NONE, API_MEMBER, API_ADMIN, BRIDGE_MEMBER, BRIDGE_ADMIN, GARBAGE;

    /** Whether the session acts as an admin (so that its generated ops keep off the real agent). */
    boolean admin() {
      return this == API_ADMIN || this == BRIDGE_ADMIN;
    }
  }

  /** An HTTP answer. */
  record Answer(int status, MultiMap headers, String body) {
  }

  private static FuzzNode instance;

  final LogWatch logs;
  final TestNode node;
  final Vertx vertx;
  final GrpcCalls grpc;
  final Map<Caller, String> tokens = new EnumMap<>(Caller.class);
  /** {@code name=value} of each cookie, as a browser would send it back. */
  final Map<Cookie, String> cookies = new EnumMap<>(Cookie.class);
  final UUID memberId;
  final RawAgent agent;
  final long heapAtStart;

  static synchronized FuzzNode get() {
    if (instance == null) {
      instance = new FuzzNode();
      Runtime.getRuntime().addShutdownHook(new Thread(instance::close, "fuzz-node-stop"));
    }
    return instance;
  }

  private FuzzNode() {
    logs = LogWatch.install();
    node = TestNode.builder().role(new GatewayRole()).role(new CoordinatorRole()).role(new PackHostRole())
      // thousands of requests from one address: the swarm's per-minute limits would answer 429 to most
      .env(SwarmSettings.RATE_LIMITS.name(), "false")
      .env(SwarmSettings.FILE_POLL_MS.name(), "10")
      .env(SwarmSettings.FILE_MAX_BYTES.name(), String.valueOf(FILE_MAX_BYTES))
      .env("CONCLAVE_MAX_MESSAGE_BYTES", String.valueOf(MAX_MESSAGE_BYTES))
      .start();
    vertx = Vertx.vertx();
    grpc = new GrpcCalls(vertx, node.grpcPort());

    Principal member = principal(PrincipalType.CLIENT, "fz-member", List.of(Roles.MEMBER), Optional.empty());
    memberId = member.id();
    tokens.put(Caller.ADMIN, node.adminToken());
    tokens.put(Caller.MEMBER, token(member, TokenPurpose.API));
    tokens.put(Caller.BRIDGE, token(member, TokenPurpose.BRIDGE));
    tokens.put(Caller.STRANGER, token(principal(PrincipalType.CLIENT, "fz-stranger", List.of(Roles.MEMBER), Optional.empty()), TokenPurpose.API));
    tokens.put(Caller.AGENT, token(principal(PrincipalType.AGENT, "fz-lone-agent", List.of(), Optional.empty()), TokenPurpose.API));
    tokens.put(Caller.PACK, token(principal(PrincipalType.PACK, "fz-pack", List.of(), Optional.empty()), TokenPurpose.API));
    agent = RawAgent.open(grpc.client(), grpc.address(),
      token(principal(PrincipalType.AGENT, "fz-agent-principal", List.of(), Optional.of(member.id())), TokenPurpose.API));
    tokens.put(Caller.MCP, agent.register(RawAgent.registration(AGENT_ID)).getMcpToken());
    Principal admin = GatewayFixture.await(node.runtime().context().principals().find(
      GatewayFixture.await(node.runtime().context().tokens().authenticate(node.adminToken())).principalId())).orElseThrow();
    cookies.put(Cookie.API_MEMBER, login(tokens.get(Caller.MEMBER)));
    cookies.put(Cookie.API_ADMIN, login(tokens.get(Caller.ADMIN)));
    cookies.put(Cookie.BRIDGE_MEMBER, login(tokens.get(Caller.BRIDGE)));
    cookies.put(Cookie.BRIDGE_ADMIN, login(token(admin, TokenPurpose.BRIDGE)));
    cookies.put(Cookie.GARBAGE, "conclave_session=eyJub3QiOiJhIHRva2VuIn0.Zm9v.YmFy");
    // the agent behaves: it heartbeats, and answers at once whatever work generated requests send it
    Thread keeper = new Thread(this::keepAgentAlive, "fuzz-agent");
    keeper.setDaemon(true);
    keeper.start();

    // a swarm agent and a task for the protocol's routes to act on
    JsonObject registration = new JsonObject().put("protocolVersion", "1.0").put("agent", new JsonObject().put("id", SWARM_AGENT)
      .put("name", "fuzz").put("type", "claude-code").put("capabilities", new JsonObject().put("skills", new JsonArray().add("fuzzing"))
        .put("maxTaskMinutes", 60).put("canRunTests", true).put("canRunBuild", true).put("canAccessBrowser", false)));
    expect2xx(send(HttpMethod.POST, "/api/v1/agents/register", Caller.ADMIN, "application/json", registration.toBuffer().getBytes()));
    expect2xx(send(HttpMethod.POST, "/api/v1/tasks", Caller.ADMIN, "application/json", new JsonObject().put("id", TASK_ID)
      .put("title", "fuzz target").put("requiredSkills", new JsonArray().add("fuzzing")).toBuffer().getBytes()));
    List<LogWatch.Entry> startup = logs.drain();
    if (!startup.isEmpty()) {
      System.out.println("fuzz: the node logged while starting (not counted):\n" + startup);
    }
    heapAtStart = heapAfterGc();
    System.out.printf("fuzz: node up, http=%d grpc=%d, heap after GC %d MiB%n", node.httpPort(), node.grpcPort(), heapAtStart >> 20);
  }

  private void keepAgentAlive() {
    long lastBeat = System.nanoTime();
    while (!agent.ended()) {
      try {
        dev.conclave.proto.coven.ServerMessage m = agent.poll(200);
        if (m != null && m.hasSendMessage()) {
          agent.respond(m.getSendMessage().getRequestId(), dev.conclave.proto.coven.MessageResponse.newBuilder()
            .setDone(dev.conclave.proto.coven.Done.getDefaultInstance()));
        }
        if (System.nanoTime() - lastBeat > TimeUnit.SECONDS.toNanos(15)) {
          agent.heartbeat();
          lastBeat = System.nanoTime();
        }
      } catch (RuntimeException | AssertionError e) {
        FuzzNode.sleep(200);
      }
    }
  }

  private Principal principal(PrincipalType type, String name, List<String> roles, Optional<UUID> owner) {
    return GatewayFixture.await(node.runtime().context().principals().create(UUID.randomUUID(), type, name, PrincipalStatus.APPROVED,
      roles, Optional.empty(), owner));
  }

  private String token(Principal p, TokenPurpose purpose) {
    return GatewayFixture.await(node.runtime().context().tokens().issue(p, Duration.ofHours(6), purpose)).token();
  }

  /** The console's login (JSON, as a program sends it); the cookie as {@code name=value}. */
  private String login(String token) {
    Answer a = send(HttpMethod.POST, "/auth/session", Caller.NOBODY, "application/json", new JsonObject().put("token", token).toBuffer().getBytes());
    expect2xx(a);
    String set = a.headers().get("set-cookie");
    return set.substring(0, set.indexOf(';'));
  }

  /** The node's own origin, as its pages send it. */
  String ownOrigin() {
    return "http://127.0.0.1:" + node.httpPort();
  }

  /** Every route of the node's route table (all three roles). */
  List<Route> routes(String surface) {
    return node.runtime().context().edge().routes().all().stream().filter(r -> r.surface().equals(surface)).toList();
  }

  /** The authorization header value for {@code caller}, or null. */
  String authorization(Caller caller) {
    return switch (caller) {
      case NOBODY -> null;
      case GARBAGE_BEARER -> "Bearer eyJub3QiOiJhIHRva2VuIn0.Zm9v.YmFy";
      case BASIC -> "Basic Zm9vOmJhcg==";
      default -> "Bearer " + tokens.get(caller);
    };
  }

  /** An HTTP/1.1 request to the node's HTTP port, on its own connection; blocks. The URI is sent as it is. */
  Answer send(HttpMethod method, String uri, Caller caller, String contentType, byte[] body) {
    java.util.Map<String, String> headers = new java.util.LinkedHashMap<>();
    String authorization = authorization(caller);
    if (authorization != null) {
      headers.put("authorization", authorization);
    }
    if (contentType != null) {
      headers.put("content-type", contentType.replaceAll("[\\r\\n]", " "));
    }
    if (uri.startsWith("/mcp")) {
      headers.put("accept", "application/json, text/event-stream");
    }
    RawHttp.Response r = RawHttp.send(node.httpPort(), method.name(), uri, headers, body, NO_ANSWER_SECONDS * 1000);
    MultiMap answerHeaders = MultiMap.caseInsensitiveMultiMap();
    r.headers().forEach(answerHeaders::add);
    return new Answer(r.status(), answerHeaders, r.body());
  }

  /** How long a request may take before it counts as unanswered (generous: the fuzz node shares 2 cores with its load). */
  static final int NO_ANSWER_SECONDS = 10;

  private static void expect2xx(Answer a) {
    if (a.status() / 100 != 2) {
      throw new IllegalStateException("fuzz set-up call failed: " + a.status() + " " + a.body());
    }
  }

  /**
   * After a surface was fuzzed: the node is ready (HTTP readiness, gRPC health), the connected agent's
   * stream still works, and the heap after GC is within bounds of what it was after start-up.
   */
  List<Findings.Finding> health() {
    List<Findings.Finding> out = new java.util.ArrayList<>();
    Answer ready = null;
    for (int i = 0; i < 50; i++) {
      ready = send(HttpMethod.GET, "/health/ready", Caller.NOBODY, null, null);
      if (ready.status() == 200) {
        break;
      }
      sleep(200);
    }
    if (ready.status() != 200) {
      out.add(new Findings.Finding("not ready afterwards", "GET /health/ready answered " + ready.status() + " " + ready.body()));
    }
    var me = grpc.unary(dev.conclave.proto.coven.ClientServiceGrpcClient.GetMe, com.google.protobuf.Empty.getDefaultInstance(),
      authorization(Caller.MEMBER));
    if (me.status() != io.vertx.grpc.common.GrpcStatus.OK) {
      out.add(new Findings.Finding("gRPC not serving afterwards", "GetMe answered " + me.status() + " " + me.message()));
    }
    if (agent.ended()) {
      out.add(new Findings.Finding("the connected agent's stream ended", String.valueOf(agent.awaitEnd())));
    }
    long heap = heapAfterGc();
    System.out.printf("fuzz: heap after GC %d MiB (at start %d MiB), threads %d%n", heap >> 20, heapAtStart >> 20,
      ManagementFactory.getThreadMXBean().getThreadCount());
    if (heap > heapAtStart + HEAP_GROWTH_BOUND) {
      out.add(new Findings.Finding("memory not back within bounds", "heap after GC " + (heap >> 20) + " MiB, at start "
        + (heapAtStart >> 20) + " MiB, bound +" + (HEAP_GROWTH_BOUND >> 20) + " MiB; what holds it (this JVM runs the node and the fuzzer):\n"
        + histogram(30)));
    }
    return out;
  }

  /** The top of the heap's class histogram (what jcmd GC.class_histogram prints). */
  static String histogram(int lines) {
    try {
      Object out = ManagementFactory.getPlatformMBeanServer().invoke(new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
        "gcClassHistogram", new Object[] {new String[0]}, new String[] {String[].class.getName()});
      return String.join("\n", String.valueOf(out).lines().limit(lines + 3).toList());
    } catch (Exception e) {
      return "(no class histogram: " + e + ")";
    }
  }

  static long heapAfterGc() {
    Runtime rt = Runtime.getRuntime();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      sleep(100);
      used = Math.min(used, rt.totalMemory() - rt.freeMemory());
    }
    return used;
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void close() {
    try {
      agent.close();
      grpc.close();
      vertx.close().await(10, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // best effort at JVM exit
    }
    node.close();
  }
}
