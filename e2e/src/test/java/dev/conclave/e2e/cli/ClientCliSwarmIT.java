package dev.conclave.e2e.cli;

import dev.conclave.e2e.support.TestJvm;
import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.e2e.support.NodeProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The swarm, pack and audit client commands (issue 46, docs/cli.md) as a user runs them, each its own
 * process of the node jar against a real node: tasks (list, show, create from flags and from JSON
 * lines, cancel, retry, bulk), swarm agents, schedules, packs, tools (of an agent program connected
 * with chosen capabilities: the same tools its Welcome had), audit; tables and JSON, exit codes, and
 * the errors (a wrong token, an unknown task, a bad line of a file).
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ClientCliSwarmIT {

  private static Path root;
  private static NodeProcess node;
  private static Process toolsAgent;
  private static int welcomedTools;
  private static Map<String, String> env;

  @BeforeAll
  static void start() throws Exception {
    root = Files.createTempDirectory("conclave-client-cli-swarm");
    Path data = root.resolve("data");
    node = NodeProcess.start(data, Map.of("CONCLAVE_NODE_ID", "cli-swarm-node"));
    node.awaitReady(Duration.ofSeconds(120));
    env = Map.of("CONCLAVE_DATA_DIR", data.toString(), "CONCLAVE_HTTP_PORT", Integer.toString(node.httpPort()),
      "XDG_CONFIG_HOME", root.resolve("config").toString());
    String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "cli-swarm-agents", "--ttl", "1h");
    startToolsAgent(token);
  }

  /** The agent program (echo backend) with capabilities chat and notes; keeps how many tools its Welcome offered. */
  private static void startToolsAgent(String token) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(TestJvm.command("256m", "-jar", NodeProcess.jar().toString(), "agent", "--backend", "echo", "--agent-id",
      "tools-1", "--capabilities", "chat,notes", "--workdir", root.toString())).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
    pb.environment().put("CONCLAVE_ENDPOINTS", "127.0.0.1:" + node.grpcPort());
    pb.environment().put("CONCLAVE_AGENT_TOKEN", token);
    toolsAgent = pb.start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(toolsAgent.getInputStream()))) {
        String line;
        while ((line = in.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException ignored) {
        // the agent exited
      }
    }, "tools-agent-output");
    reader.setDaemon(true);
    reader.start();
    Pattern registered = Pattern.compile("conclave-agent: registered agent=tools-1 .* tools=(\\d+) .*");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      String line = lines.poll(200, TimeUnit.MILLISECONDS);
      Matcher m = line == null ? null : registered.matcher(line);
      if (m != null && m.matches()) {
        welcomedTools = Integer.parseInt(m.group(1));
        return;
      }
    }
    throw new AssertionError("the tools agent never registered");
  }

  @AfterAll
  static void stop() {
    if (toolsAgent != null) {
      toolsAgent.destroyForcibly();
    }
    if (node != null) {
      node.terminate(Duration.ofSeconds(30));
      node.close();
    }
    if (root != null) {
      TestDatabase.deleteTree(root);
    }
  }

  private static CliProcess.Result ok(String... args) {
    CliProcess.Result r = CliProcess.run(env, args);
    assertThat(r.exit()).as(String.join(" ", args) + ": " + r.err()).isZero();
    return r;
  }

  private static JsonObject json(String... args) {
    String[] withJson = java.util.Arrays.copyOf(args, args.length + 2);
    withJson[args.length] = "-o";
    withJson[args.length + 1] = "json";
    return new JsonObject(ok(withJson).out());
  }

  @Test
  void tasksCreateListAndShowInATableAndInTheApisJson() {
    JsonObject created = json("tasks", "create", "--title", "Add login form", "--description", "a form", "--priority", "high",
      "--skill", "react,css", "--branch", "feature/login", "--max-retries", "3", "--estimated-minutes", "30");
    String id = created.getString("id");
    assertThat(created.getString("status")).isEqualTo("ready");
    assertThat(created.getJsonArray("requiredSkills")).containsExactlyInAnyOrder("react", "css");
    assertThat(created.getInteger("maxRetries")).isEqualTo(3);

    CliProcess.Result table = ok("tasks", "list", "--status", "ready", "--branch", "feature/login");
    assertThat(table.out().lines().findFirst().orElseThrow()).matches("ID +STATUS +PRIORITY +TYPE +AGENT +RETRIES +SKILLS +TITLE");
    assertThat(table.out()).containsPattern(id + " +ready +high +code +- +0/3 +(react,css|css,react) +Add login form");

    JsonObject listed = json("tasks", "list", "--priority", "high", "--limit", "500");
    assertThat(listed.getJsonArray("tasks").stream().map(t -> ((JsonObject) t).getString("id"))).contains(id);
    assertThat(json("tasks", "list", "--status", "failed", "--branch", "feature/login").getJsonArray("tasks")).isEmpty();

    CliProcess.Result show = ok("tasks", "show", id);
    assertThat(show.out()).startsWith("FIELD").containsPattern("\nstatus +ready\n").containsPattern("\nbranch +feature/login\n");
    assertThat(json("tasks", "show", id).getString("description")).isEqualTo("a form");
    assertThat(ok("tasks", "show", id, "-o", "yaml").out()).contains("title: Add login form");
  }

  @Test
  void aUniqueKeyMakesTheSecondCreateAnswerTheFirstTask() {
    JsonObject first = json("tasks", "create", "--title", "Nightly report", "--unique-key", "report:cli", "--unique-window-minutes", "1440");
    JsonObject second = json("tasks", "create", "--title", "Nightly report again", "--unique-key", "report:cli");
    assertThat(second.getString("id")).isEqualTo(first.getString("id"));
    assertThat(second.getBoolean("existing")).isTrue();
  }

  @Test
  void fromFileCreatesEachGoodLineAndReportsEachBadOneByNumberThenExits1() throws Exception {
    Path file = Files.writeString(root.resolve("tasks.jsonl"), String.join("\n",
      "{\"id\": \"ff-1\", \"title\": \"first\"}",
      "",
      "{\"title\": \"broken\"",
      "{\"id\": \"ff-4\", \"title\": \"fourth\", \"priority\": \"urgent\"}",
      "{\"id\": \"ff-5\", \"title\": \"fifth\", \"dependencies\": [\"ff-1\"]}") + "\n");
    CliProcess.Result r = CliProcess.run(env, "tasks", "create", "--from-file", file.toString());
    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.err().lines().toList()).hasSize(2);
    assertThat(r.err()).contains("conclave tasks create: line 3: not valid JSON")
      .contains("conclave tasks create: line 4: 400 invalid_operation").contains("priority");
    assertThat(r.out()).containsPattern("LINE +ID +STATUS +RESULT").containsPattern("\n1 +ff-1 +ready +created\n")
      .containsPattern("\n5 +ff-5 +blocked +created\n");
    assertThat(json("tasks", "show", "ff-5").getString("status")).isEqualTo("blocked");

    CliProcess.Result stdin = CliProcess.runWithInput(env, "{\"id\":\"ff-6\",\"title\":\"from stdin\"}\n",
      "tasks", "create", "--from-file", "-", "-o", "json");
    assertThat(stdin.exit()).as(stdin.err()).isZero();
    JsonObject doc = new JsonObject(stdin.out());
    assertThat(doc.getInteger("created")).isEqualTo(1);
    assertThat(doc.getInteger("failed")).isZero();
    assertThat(doc.getJsonArray("results").getJsonObject(0).getJsonObject("task").getString("id")).isEqualTo("ff-6");
  }

  @Test
  void cancelRetryAndBulkActions() {
    String id = json("tasks", "create", "--title", "to cancel", "--skill", "bulkskill").getString("id");
    assertThat(ok("tasks", "cancel", id, "--reason", "not needed").out()).containsPattern(id + " +cancelled");
    assertThat(json("tasks", "show", id).getString("cancelReason")).isEqualTo("not needed");
    assertThat(json("tasks", "retry", id).getString("status")).isEqualTo("ready");

    CliProcess.Result bulk = ok("tasks", "bulk", "--action", "reprioritize", "--priority", "critical", "--skill", "bulkskill");
    assertThat(bulk.out()).matches("(?s)ACTION +MATCHED +CHANGED\nreprioritize +1 +1\n");
    assertThat(json("tasks", "show", id).getString("priority")).isEqualTo("critical");
    JsonObject cancelled = json("tasks", "bulk", "--action", "cancel", "--id", id, "--reason", "bulk");
    assertThat(cancelled.getInteger("matched")).isEqualTo(1);
    assertThat(cancelled.getInteger("changed")).isEqualTo(1);

    CliProcess.Result noFilter = CliProcess.run(env, "tasks", "bulk", "--action", "retry");
    assertThat(noFilter.exit()).isEqualTo(1);
    assertThat(noFilter.err()).startsWith("conclave tasks bulk: 400 invalid_operation").contains("filter").hasLineCount(1);
    CliProcess.Result notRetryable = CliProcess.run(env, "tasks", "retry", json("tasks", "create", "--title", "ready one").getString("id"));
    assertThat(notRetryable.exit()).isEqualTo(1);
    assertThat(notRetryable.err()).startsWith("conclave tasks retry: 409 invalid_operation").hasLineCount(1);
  }

  @Test
  void swarmAgentsListsTheCoordinatorsAgents() throws Exception {
    HttpResponse<String> registered = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + node.httpPort() + "/api/v1/agents/register"))
      .header("authorization", "Bearer " + Files.readString(node.dataDir().resolve("admin.token")).trim())
      .header("content-type", "application/json")
      .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("protocolVersion", "1.0").put("operation", "REGISTER")
        .put("agent", new JsonObject().put("id", "swarm-cli-1").put("name", "Swarm CLI 1").put("type", "custom")
          .put("capabilities", new JsonObject().put("skills", new JsonArray().add("typescript")))).encode())).build(),
      HttpResponse.BodyHandlers.ofString());
    assertThat(registered.statusCode()).as(registered.body()).isEqualTo(200);
    CliProcess.Result table = ok("swarm", "agents");
    assertThat(table.out()).startsWith("ID").containsPattern("swarm-cli-1 +Swarm CLI 1 +custom +idle +typescript +- ");
    JsonObject doc = json("swarm", "agents", "--status", "idle");
    assertThat(doc.getJsonArray("agents").stream().map(a -> ((JsonObject) a).getString("id"))).contains("swarm-cli-1");
    assertThat(json("swarm", "agents", "--status", "offline").getJsonArray("agents").stream()
      .map(a -> ((JsonObject) a).getString("id"))).doesNotContain("swarm-cli-1");
  }

  @Test
  void schedulesCreateListAndDeleteAndTheirErrors() {
    CliProcess.Result made = ok("schedules", "create", "cli-hourly", "--every", "PT1H", "--title", "hourly sweep", "--priority", "low");
    assertThat(made.out()).startsWith("NAME").containsPattern("cli-hourly +every PT1H +\\S+ +\\S+ +0 +0 +- +hourly sweep");
    JsonObject cron = json("schedules", "create", "cli-nightly", "--cron", "0 2 * * *", "--timezone", "Europe/Berlin", "--title", "nightly",
      "--skill", "reports");
    assertThat(cron.getString("timezone")).isEqualTo("Europe/Berlin");
    assertThat(cron.getJsonObject("task").getJsonArray("requiredSkills")).containsExactly("reports");

    assertThat(json("schedules", "list").getJsonArray("schedules").stream().map(s -> ((JsonObject) s).getString("name")))
      .contains("cli-hourly", "cli-nightly");
    CliProcess.Result again = CliProcess.run(env, "schedules", "create", "cli-hourly", "--every", "PT1H", "--title", "x");
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.err()).startsWith("conclave schedules create: 409 schedule_already_exists").hasLineCount(1);
    CliProcess.Result bad = CliProcess.run(env, "schedules", "create", "cli-bad", "--cron", "not a cron", "--title", "x");
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.err()).startsWith("conclave schedules create: 400 invalid_operation").contains("cron");

    assertThat(ok("schedules", "delete", "cli-hourly").out()).contains("cli-hourly");
    CliProcess.Result gone = CliProcess.run(env, "schedules", "delete", "cli-hourly");
    assertThat(gone.exit()).isEqualTo(1);
    assertThat(gone.err()).startsWith("conclave schedules delete: 404 schedule_not_found").hasLineCount(1);
  }

  @Test
  void packsListsTheBuiltinsWithTheirTools() {
    CliProcess.Result table = ok("packs");
    assertThat(table.out()).startsWith("PACK").containsPattern("builtin:notes +builtin +- +- +notes +\\S*note");
    JsonObject doc = json("packs");
    assertThat(doc.getJsonArray("builtins").stream().map(b -> ((JsonObject) b).getString("packId")))
      .contains("builtin:base", "builtin:notes", "builtin:mail", "builtin:ui", "builtin:admin");
    assertThat(doc.getJsonArray("packs")).isNotNull();
  }

  @Test
  void toolsOfAnAgentAreTheToolsOfItsWelcome() {
    JsonObject doc = json("tools", "--agent", "tools-1");
    assertThat(doc.getString("agentId")).isEqualTo("tools-1");
    Set<String> caps = Set.copyOf(doc.getJsonArray("capabilities").stream().map(String::valueOf).toList());
    assertThat(caps).containsExactlyInAnyOrder("chat", "notes");
    JsonArray tools = doc.getJsonArray("tools");
    assertThat(tools).hasSize(welcomedTools);
    assertThat(tools.stream().map(JsonObject.class::cast)).allSatisfy(t ->
      assertThat(caps).containsAll(t.getJsonArray("requiredCapabilities").stream().map(String::valueOf).toList()));
    assertThat(tools.stream().map(t -> ((JsonObject) t).getString("packId"))).contains("builtin:notes").doesNotContain("builtin:admin");

    CliProcess.Result table = ok("tools", "--agent", "tools-1");
    assertThat(table.out()).startsWith("TOOL").containsPattern("\\n\\S+ +builtin:notes +notes +\\d+ ");
    List<String> every = json("tools").getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("packId")).toList();
    assertThat(every).contains("builtin:admin", "builtin:notes", "builtin:mail");
    assertThat(json("tools", "--capability", "mail").getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("packId")))
      .contains("builtin:mail").doesNotContain("builtin:notes");

    CliProcess.Result unknown = CliProcess.run(env, "tools", "--agent", "nobody-here");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).startsWith("conclave tools: agent_not_found").hasLineCount(1);
  }

  @Test
  void auditFiltersByTimeAndPrincipal() throws Exception {
    json("tasks", "create", "--title", "for the audit");
    // the audit log is written in batches, at most a second behind
    JsonArray entries = new JsonArray();
    for (int i = 0; i < 30 && entries.isEmpty(); i++) {
      Thread.sleep(i == 0 ? 0 : 500);
      entries = json("audit", "--since", "1h", "--action", "http POST /api/v1/tasks", "--limit", "500").getJsonArray("entries");
    }
    assertThat(entries).isNotEmpty();
    assertThat(entries.stream().map(e -> ((JsonObject) e).getString("action"))).allMatch(a -> a.startsWith("http POST /api/v1/tasks"));
    JsonObject any = entries.stream().map(JsonObject.class::cast).filter(e -> e.getString("actorId") != null).findFirst().orElseThrow();
    JsonObject byActor = json("audit", "--principal", any.getString("actorId"), "--since", "PT1H");
    assertThat(byActor.getJsonArray("entries").stream().map(e -> ((JsonObject) e).getString("actorId"))).containsOnly(any.getString("actorId"));
    assertThat(json("audit", "--until", "2000-01-01T00:00:00Z").getJsonArray("entries")).isEmpty();
    assertThat(ok("audit", "--since", "1h").out()).startsWith("AT").contains("OUTCOME");

    CliProcess.Result badTime = CliProcess.run(env, "audit", "--since", "yesterday");
    assertThat(badTime.exit()).isEqualTo(2);
    assertThat(badTime.err()).startsWith("conclave audit: --since must be an ISO-8601 time").hasLineCount(1);
    CliProcess.Result badPrincipal = CliProcess.run(env, "audit", "--principal", "not-a-uuid");
    assertThat(badPrincipal.exit()).isEqualTo(1);
    assertThat(badPrincipal.err()).startsWith("conclave audit: 400 ").contains("actor").hasLineCount(1);
  }

  @Test
  void errorsAreOneLineWithTheServersCodeAndTheirExitCodes() throws Exception {
    Path bad = Files.writeString(root.resolve("bad.token"), "not-a-token\n");
    for (String[] args : List.of(new String[] {"tasks", "list"}, new String[] {"swarm", "agents"}, new String[] {"schedules", "list"},
      new String[] {"packs"}, new String[] {"tools"}, new String[] {"audit"})) {
      String[] withToken = java.util.Arrays.copyOf(args, args.length + 2);
      withToken[args.length] = "--token-file";
      withToken[args.length + 1] = bad.toString();
      CliProcess.Result r = CliProcess.run(env, withToken);
      assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(4);
      assertThat(r.err()).startsWith("conclave " + String.join(" ", args) + ": 401 token_invalid").hasLineCount(1);
    }
    CliProcess.Result unknown = CliProcess.run(env, "tasks", "show", "no-such-task");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).startsWith("conclave tasks show: 404 task_not_found").hasLineCount(1);
    CliProcess.Result noTitle = CliProcess.run(env, "tasks", "create", "--priority", "high");
    assertThat(noTitle.exit()).isEqualTo(2);
    assertThat(noTitle.err()).startsWith("conclave tasks create: --title is required");
    Map<String, String> noNode = new HashMap<>(env);
    noNode.put("CONCLAVE_URL", "http://127.0.0.1:1");
    assertThat(CliProcess.run(noNode, "tasks", "list").exit()).isEqualTo(3);
    assertThat(CliProcess.run(env, "tasks", "--help").out()).contains("Example:").contains("bulk");
  }
}
