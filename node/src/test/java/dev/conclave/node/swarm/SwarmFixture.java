package dev.conclave.node.swarm;

import dev.conclave.platform.testing.Await;
import dev.conclave.agentruntime.app.AgentRuntime;
import dev.conclave.agentruntime.config.AgentSettings;
import dev.conclave.agentruntime.config.RuntimeConfig;
import dev.conclave.agentruntime.config.SettingValues;
import dev.conclave.agentruntime.config.SwarmOptions;
import dev.conclave.agentruntime.swarm.SwarmConfig;
import dev.conclave.gateway.app.GatewayRole;
import dev.conclave.packs.app.PackHostRole;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.settings.Setting;
import dev.conclave.swarm.app.CoordinatorRole;
import dev.conclave.swarm.config.SwarmSettings;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;


/**
 * A node running all three roles and agent programs ({@link AgentRuntime}, in this JVM, each on a
 * thread of its own) working its swarm; the admin's HTTP calls to the coordinator and the gateway.
 */
final class SwarmFixture implements AutoCloseable {

  final TestNode node;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  SwarmFixture() {
    node = TestNode.builder().role(new GatewayRole()).role(new CoordinatorRole()).role(new PackHostRole())
      .env(SwarmSettings.RATE_LIMITS.name(), "false").env(SwarmSettings.JOB_INTERVAL_MS.name(), "200")
      .env(SwarmSettings.EVENT_POLL_MS.name(), "100").start();
  }

  /** A running agent program: its output, its stop, its exit code. */
  record Program(String agentId, Path workdir, ByteArrayOutputStream output, CompletableFuture<String> stop,
                 CompletableFuture<Integer> exit) {

    String out() {
      return output.toString(StandardCharsets.UTF_8);
    }

    int stopAndWait(String reason) throws Exception {
      stop.complete(reason);
      return exit.get(40, TimeUnit.SECONDS);
    }
  }

  /** A new approved agent principal, owned by the admin (who approves its tools); its token. */
  String agentToken(String name) {
    var ctx = node.runtime().context();
    UUID admin = Await.await(ctx.tokens().authenticate(node.adminToken())).principalId();
    Principal p = Await.await(ctx.principals().create(UUID.randomUUID(), PrincipalType.AGENT, name + "-" + UUID.randomUUID(),
      PrincipalStatus.APPROVED, java.util.List.of(), Optional.empty(), Optional.of(admin)));
    return Await.await(ctx.tokens().issue(p, Duration.ofHours(1))).token();
  }

  /**
   * Starts {@code ./conclave agent --swarm} with {@code flags} (besides the endpoint, token, agent id,
   * working directory) and {@code swarm} adjusting its swarm configuration.
   */
  Program start(String agentId, Map<Setting<?>, String> flags, UnaryOperator<SwarmConfig> swarm) {
    try {
      Path workdir = Files.createTempDirectory("swarm-agent-" + agentId);
      Map<Setting<?>, String> all = new HashMap<>(flags);
      all.put(AgentSettings.ENDPOINTS, "127.0.0.1:" + node.grpcPort());
      all.put(AgentSettings.AGENT_ID, agentId);
      all.putIfAbsent(AgentSettings.WORKDIR, workdir.toString());
      all.put(AgentSettings.SWARM, "true");
      // the PATH as the program would have it: a CLI backend checks its executable and curl on it at start-up
      Map<String, String> env = Map.of("CONCLAVE_AGENT_TOKEN", agentToken(agentId), "PATH", System.getenv().getOrDefault("PATH", ""));
      SettingValues values = SettingValues.of(all, env);
      RuntimeConfig config = RuntimeConfig.from(values, "test-host");
      SwarmConfig swarmConfig = swarm.apply(SwarmOptions.from(values, config.backend()).orElseThrow());
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
      CompletableFuture<String> stop = new CompletableFuture<>();
      CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> AgentRuntime.run(config, Optional.of(swarmConfig), env, out, stop));
      Program p = new Program(agentId, Path.of(all.get(AgentSettings.WORKDIR)), bytes, stop, exit);
      await("agent " + agentId + " registered with the coordinator", () -> p.out().contains("swarm registered agent=" + agentId)
        || exit.isDone(), Duration.ofSeconds(30));
      if (exit.isDone()) {
        throw new AssertionError("agent " + agentId + " exited: " + p.out());
      }
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The stand-in Claude Code of the swarm tests (agent-runtime's fake-cli/claude-swarm), installed as an executable. */
  static Path standInClaude() {
    try {
      Path bin = Files.createTempDirectory("swarm-bin");
      Path exe = bin.resolve("claude");
      Files.copy(Path.of("..", "agent-runtime", "src", "test", "resources", "fake-cli", "claude-swarm"), exe);
      Files.setPosixFilePermissions(exe, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
      return exe;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  JsonObject createTask(JsonObject task) {
    return call("POST", "/api/v1/tasks", task);
  }

  JsonObject task(String id) {
    return call("GET", "/api/v1/tasks/" + enc(id), null);
  }

  JsonObject swarmAgent(String id) {
    return call("GET", "/api/v1/agents/" + enc(id), null);
  }

  JsonArray history(String taskId) {
    return call("GET", "/api/v1/tasks/" + enc(taskId) + "/history", null).getJsonArray("history");
  }

  JsonObject command(String agentId, JsonObject command) {
    return call("POST", "/api/v1/agents/" + enc(agentId) + "/commands", command);
  }

  /** The conversation's ledger as the console reads it: {@code [{seq, event}]}, oldest first. */
  JsonArray conversation(String key) {
    return call("GET", "/api/v1/gateway/conversations/" + enc(key) + "/events?after=0&limit=500", null).getJsonArray("events");
  }

  /** Waits for the task to reach {@code status}; returns it. */
  JsonObject awaitTask(String id, Predicate<JsonObject> done, Duration limit) {
    JsonObject[] last = new JsonObject[1];
    await("task " + id, () -> done.test(last[0] = task(id)), limit);
    return last[0];
  }

  /** A new approved member (a person with the member role); its token. */
  String memberToken(String name) {
    var ctx = node.runtime().context();
    Principal p = Await.await(ctx.principals().create(UUID.randomUUID(), PrincipalType.CLIENT, name + "-" + UUID.randomUUID(),
      PrincipalStatus.APPROVED, java.util.List.of(dev.conclave.platform.auth.Roles.MEMBER), Optional.empty(), Optional.empty()));
    return Await.await(ctx.tokens().issue(p, Duration.ofHours(1))).token();
  }

  JsonObject call(String method, String path, JsonObject body) {
    HttpResponse<String> r = send(method, path, body, node.adminToken());
    if (r.statusCode() / 100 != 2) {
      throw new AssertionError(method + " " + path + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body().isEmpty() ? new JsonObject() : new JsonObject(r.body());
  }

  /** An HTTP call with {@code token}, whatever it answers. */
  HttpResponse<String> send(String method, String path, JsonObject body, String token) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + path))
      .header("authorization", "Bearer " + token).timeout(Duration.ofSeconds(20))
      .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body.encode()));
    if (body != null) {
      b.header("content-type", "application/json");
    }
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static void await(String what, java.util.function.BooleanSupplier condition, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + limit.toSeconds() + " s waiting for " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public void close() {
    node.close();
  }
}
