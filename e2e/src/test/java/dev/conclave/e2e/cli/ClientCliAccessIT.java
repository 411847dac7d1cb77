package dev.conclave.e2e.cli;

import dev.conclave.platform.testing.TestDatabase;
import dev.conclave.e2e.packs.ToolAgent;
import dev.conclave.e2e.support.AgentProcess;
import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.proto.coven.PackToolResult;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.client.GrpcClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client commands for agents and access (issue 46, docs/cli.md) as a user runs them, each its
 * own process of the node jar against a real node process: principals, principal create, tokens
 * issue/list/revoke, grant/revoke, bindings (and its HTTP routes), plus answer (to an agent's
 * ask_user question) and retire. Table and JSON output, exit codes, and the errors: a wrong or
 * revoked token, a member where only admins may act, an unknown principal, agent, token or binding.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ClientCliAccessIT {

  private static Path root;
  private static NodeProcess node;
  private static AgentProcess echo;
  private static AgentProcess retiring;
  private static Vertx vertx;
  private static GrpcClient grpc;
  private static ToolAgent asking;
  private static Map<String, String> env;

  @BeforeAll
  static void start() throws Exception {
    root = Files.createTempDirectory("conclave-client-cli-access");
    Path data = root.resolve("data");
    node = NodeProcess.start(data, Map.of("CONCLAVE_NODE_ID", "access-node"));
    node.awaitReady(Duration.ofSeconds(120));
    env = Map.of("CONCLAVE_DATA_DIR", data.toString(), "CONCLAVE_HTTP_PORT", Integer.toString(node.httpPort()),
      "XDG_CONFIG_HOME", root.resolve("config").toString());
    String token = NodeProcess.cli(Map.of("CONCLAVE_DATA_DIR", data.toString()), "token", "--new-agent", "access-agents", "--ttl", "1h");
    echo = AgentProcess.start(node.grpcPort(), token, "acc-1", "echo");
    retiring = AgentProcess.start(node.grpcPort(), token, "ret-1", "echo");
    for (AgentProcess agent : List.of(echo, retiring)) {
      assertThat(agent.poll("registered", TimeUnit.SECONDS.toMillis(180))).as("an agent registered").isNotNull();
    }
    vertx = Vertx.vertx();
    grpc = GrpcClient.client(vertx);
    // ask_user is a built-in tool of the ui capability
    asking = ToolAgent.register(vertx, grpc, node.grpcPort(), token, "ask-1", List.of("chat", "ui"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (asking != null) {
      asking.close();
    }
    for (AgentProcess agent : new AgentProcess[] {echo, retiring}) {
      if (agent != null) {
        agent.close();
      }
    }
    if (vertx != null) {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    if (node != null) {
      node.terminate(Duration.ofSeconds(30));
      node.close();
    }
    if (root != null) {
      TestDatabase.deleteTree(root);
    }
  }

  private static CliProcess.Result run(String... args) {
    return CliProcess.run(env, args);
  }

  private static CliProcess.Result ok(String... args) {
    CliProcess.Result r = CliProcess.run(env, args);
    assertThat(r.exit()).as(String.join(" ", args) + ": " + r.err()).isZero();
    return r;
  }

  /** A new member with a token in a file; answers {id, tokenFile}. */
  private static String[] member(String name) throws Exception {
    String id = new JsonObject(ok("principal", "create", name, "-o", "json").out()).getString("principalId");
    String token = new JsonObject(ok("tokens", "issue", id, "--ttl", "1h", "-o", "json").out()).getString("token");
    Path file = Files.writeString(root.resolve(name + ".token"), token + "\n");
    return new String[] {id, file.toString()};
  }

  private static Map<String, String> envWith(String... more) {
    Map<String, String> e = new HashMap<>(env);
    for (int i = 0; i < more.length; i += 2) {
      e.put(more[i], more[i + 1]);
    }
    return e;
  }

  @Test
  void principalCreatePrintsTheNewPrincipalAndPrincipalsListsIt() {
    CliProcess.Result created = ok("principal", "create", "alice");
    List<String> lines = created.out().lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).matches("ID +TYPE +NAME +STATUS +ROLES");
    assertThat(lines.get(1)).matches("[0-9a-f-]{36} +client +alice +approved +member");
    String id = lines.get(1).split(" +")[0];

    JsonObject bot = new JsonObject(ok("principal", "create", "alice-bot", "--type", "agent", "--owner", "alice", "-o", "json").out());
    assertThat(bot.getString("type")).isEqualTo("agent");
    assertThat(bot.getString("ownerId")).isEqualTo(id);
    assertThat(bot.fieldNames()).contains("principalId", "displayName", "status", "roles");

    CliProcess.Result table = ok("principals");
    assertThat(table.out().lines().findFirst().orElseThrow()).matches("ID +TYPE +NAME +STATUS +ROLES +OWNER +CREATED");
    assertThat(table.out()).containsPattern("(?m)^" + bot.getString("principalId") + " +agent +alice-bot +approved +- +alice +\\S+Z$");
    JsonArray all = new JsonObject(ok("principals", "-o", "json").out()).getJsonArray("principals");
    assertThat(all.stream().map(JsonObject.class::cast)).anySatisfy(p -> {
      assertThat(p.getString("principalId")).isEqualTo(id);
      assertThat(p.getString("displayName")).isEqualTo("alice");
    });
    assertThat(ok("principals", "--status", "pending", "-o", "json").out()).doesNotContain(id);

    CliProcess.Result badType = run("principal", "create", "x", "--type", "robot");
    assertThat(badType.exit()).isEqualTo(1);
    assertThat(badType.err()).startsWith("conclave principal create: 400 field_invalid: type must be one of client, agent, pack")
      .hasLineCount(1);
    CliProcess.Result noOwner = run("principal", "create", "y", "--type", "agent", "--owner", "nobody-at-all");
    assertThat(noOwner.exit()).isEqualTo(1);
    assertThat(noOwner.err()).isEqualTo("conclave principal create: principal_not_found: no principal named nobody-at-all\n");
  }

  @Test
  void tokensAreIssuedOnceListedWithoutTheirValueAndRevoked() throws Exception {
    String carol = new JsonObject(ok("principal", "create", "carol", "-o", "json").out()).getString("principalId");
    CliProcess.Result issued = ok("tokens", "issue", "carol", "--ttl", "2h");
    List<String> lines = issued.out().lines().toList();
    assertThat(lines.get(0)).matches("TOKEN ID +PRINCIPAL +PURPOSE +EXPIRES +TOKEN");
    assertThat(lines.get(1)).matches("[0-9a-f-]{36} +" + carol + " +api +\\S+Z +\\S+");
    assertThat(issued.err()).isEqualTo("the token is shown once: keep it now\n");
    String tokenId = lines.get(1).split(" +")[0];
    Path file = Files.writeString(root.resolve("carol.token"), lines.get(1).split(" +")[4]);

    assertThat(run("agents", "--token-file", file.toString()).exit()).as("the token works").isZero();
    CliProcess.Result listed = ok("tokens", "list", carol, "--token-file", file.toString());
    assertThat(listed.out().lines().toList()).hasSize(2);
    assertThat(listed.out().lines().findFirst().orElseThrow()).matches("TOKEN ID +PURPOSE +ISSUED +EXPIRES +REVOKED +LAST USED");
    assertThat(listed.out()).containsPattern("(?m)^" + tokenId + " +api +\\S+Z +\\S+Z +- +");
    JsonObject json = new JsonObject(ok("tokens", "list", "carol", "-o", "json").out());
    assertThat(json.getString("principalId")).isEqualTo(carol);
    assertThat(json.getJsonArray("tokens").getJsonObject(0).fieldNames()).contains("tokenId", "purpose", "issuedAt", "expiresAt")
      .doesNotContain("token");

    CliProcess.Result revoked = ok("tokens", "revoke", tokenId);
    assertThat(revoked.out().lines().toList()).containsExactly("TOKEN ID" + " ".repeat(30) + "REVOKED  CHANGED",
      tokenId + "  true     true");
    CliProcess.Result refused = run("agents", "--token-file", file.toString());
    assertThat(refused.exit()).as("a revoked token is refused: exit 4").isEqualTo(4);
    assertThat(refused.err()).startsWith("conclave agents: 401 token_revoked: ").hasLineCount(1);
    assertThat(new JsonObject(ok("tokens", "list", "carol", "-o", "json").out()).getJsonArray("tokens").getJsonObject(0)
      .getString("revokedAt")).isNotBlank();

    CliProcess.Result unknownToken = run("tokens", "revoke", UUID.randomUUID().toString());
    assertThat(unknownToken.exit()).isEqualTo(1);
    assertThat(unknownToken.err()).startsWith("conclave tokens revoke: 404 token_not_found: ").hasLineCount(1);
    CliProcess.Result unknownPrincipal = run("tokens", "issue", UUID.randomUUID().toString());
    assertThat(unknownPrincipal.exit()).isEqualTo(1);
    assertThat(unknownPrincipal.err()).startsWith("conclave tokens issue: 404 principal_not_found: ").hasLineCount(1);
    CliProcess.Result unknownName = run("tokens", "list", "nobody-at-all");
    assertThat(unknownName.exit()).isEqualTo(1);
    assertThat(unknownName.err()).isEqualTo("conclave tokens list: principal_not_found: no principal named nobody-at-all\n");
    assertThat(run("tokens", "issue", "carol", "--ttl", "1w").exit()).as("a bad duration is usage").isEqualTo(2);
  }

  @Test
  void grantLetsAMemberActOnAnAgentAndRevokeTakesItBack() throws Exception {
    String[] dave = member("dave");
    assertThat(agentIds(dave[1])).doesNotContain("acc-1");
    CliProcess.Result denied = run("send", "acc-1", "hi", "--token-file", dave[1]);
    assertThat(denied.exit()).as(denied.err()).isNotZero();

    CliProcess.Result granted = ok("grant", "acc-1", "dave");
    assertThat(granted.out().lines().toList()).containsExactly("AGENT  PRINCIPAL" + " ".repeat(29) + "GRANTED",
      "acc-1  " + dave[0] + "  true");
    assertThat(agentIds(dave[1])).contains("acc-1");
    CliProcess.Result sent = CliProcess.run(env, "send", "acc-1", "hello from dave", "--token-file", dave[1]);
    assertThat(sent.exit()).as(sent.err()).isZero();
    assertThat(sent.out()).isEqualTo("echo: hello from dave\n");

    CliProcess.Result byDave = run("grant", "acc-1", dave[0], "--token-file", dave[1]);
    assertThat(byDave.exit()).as("only the owner or an admin grants: exit 4").isEqualTo(4);
    assertThat(byDave.err()).startsWith("conclave grant: 403 permission_denied: ").hasLineCount(1);

    JsonObject taken = new JsonObject(ok("revoke", "acc-1", dave[0], "-o", "json").out());
    assertThat(taken.getString("agentId")).isEqualTo("acc-1");
    assertThat(taken.getString("principalId")).isEqualTo(dave[0]);
    assertThat(taken.getBoolean("granted")).isFalse();
    assertThat(taken.getBoolean("changed")).isTrue();
    assertThat(agentIds(dave[1])).doesNotContain("acc-1");

    CliProcess.Result noAgent = run("grant", "no-such-agent", dave[0]);
    assertThat(noAgent.exit()).isEqualTo(1);
    assertThat(noAgent.err()).startsWith("conclave grant: 404 agent_not_found: ").hasLineCount(1);
    CliProcess.Result noPrincipal = run("grant", "acc-1", UUID.randomUUID().toString());
    assertThat(noPrincipal.exit()).isEqualTo(1);
    assertThat(noPrincipal.err()).startsWith("conclave grant: 404 principal_not_found: ").hasLineCount(1);
  }

  private static List<String> agentIds(String tokenFile) {
    CliProcess.Result r = CliProcess.run(env, "agents", "-o", "json", "--token-file", tokenFile);
    assertThat(r.exit()).as(r.err()).isZero();
    return new JsonObject(r.out()).getJsonArray("agents").stream().map(a -> ((JsonObject) a).getString("agentId")).toList();
  }

  @Test
  void bindingsAreCreatedListedAndDeletedByAdminsOnly() throws Exception {
    CliProcess.Result made = ok("bindings", "create", "e2e", "C024BE91L", "acc-1");
    List<String> lines = made.out().lines().toList();
    assertThat(lines.get(0)).matches("ID +FRONTEND +CHANNEL +AGENT +CREATED");
    assertThat(lines.get(1)).matches("[0-9a-f-]{36} +e2e +C024BE91L +acc-1 +\\S+Z");
    String id = lines.get(1).split(" +")[0];

    CliProcess.Result table = ok("bindings", "--agent", "acc-1");
    assertThat(table.out().lines().toList()).hasSize(2).last().isEqualTo(lines.get(1));
    JsonObject listed = new JsonObject(ok("bindings", "--frontend", "e2e", "-o", "json").out()).getJsonArray("bindings").getJsonObject(0);
    assertThat(listed.getString("id")).isEqualTo(id);
    assertThat(listed.getString("channelId")).isEqualTo("C024BE91L");
    assertThat(listed.getString("agentId")).isEqualTo("acc-1");

    CliProcess.Result twice = run("bindings", "create", "e2e", "C024BE91L", "acc-1");
    assertThat(twice.exit()).isEqualTo(1);
    assertThat(twice.err()).isEqualTo("conclave bindings create: 409 binding_exists: a binding for e2e:C024BE91L already exists\n");
    CliProcess.Result colon = run("bindings", "create", "e2e:x", "C1", "acc-1");
    assertThat(colon.exit()).isEqualTo(1);
    assertThat(colon.err()).startsWith("conclave bindings create: 400 binding_invalid: frontend must not contain ':'").hasLineCount(1);

    String[] erin = member("erin");
    CliProcess.Result byMember = run("bindings", "--token-file", erin[1]);
    assertThat(byMember.exit()).isEqualTo(4);
    assertThat(byMember.err()).startsWith("conclave bindings: 403 ").hasLineCount(1);
    assertThat(run("bindings", "delete", id, "--token-file", erin[1]).exit()).isEqualTo(4);

    CliProcess.Result deleted = ok("bindings", "delete", id, "-o", "json");
    assertThat(new JsonObject(deleted.out()).getBoolean("deleted")).isTrue();
    assertThat(ok("bindings", "--agent", "acc-1").out().lines().toList()).hasSize(1);
    CliProcess.Result again = run("bindings", "delete", id);
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.err()).isEqualTo("conclave bindings delete: 404 binding_not_found: no binding " + id + "\n");
  }

  @Test
  void aWrongTokenIsExit4WithTheServersCode() throws Exception {
    Path bad = Files.writeString(root.resolve("bad.token"), "not-a-token\n");
    for (String[] args : List.of(new String[] {"principals"}, new String[] {"tokens", "list", UUID.randomUUID().toString()},
      new String[] {"bindings"}, new String[] {"grant", "acc-1", UUID.randomUUID().toString()})) {
      List<String> withToken = new java.util.ArrayList<>(List.of(args));
      withToken.addAll(List.of("--token-file", bad.toString()));
      CliProcess.Result r = run(withToken.toArray(String[]::new));
      assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(4);
      assertThat(r.err()).contains(": 401 token_invalid").hasLineCount(1);
    }
  }

  @Test
  void answerAnswersTheQuestionAnAgentAskedOnce() {
    JsonObject input = new JsonObject().put("question", "Ship it?").put("timeout_seconds", 120)
      .put("options", new JsonArray().add(new JsonObject().put("label", "yes")).add(new JsonObject().put("label", "no")));
    CompletableFuture<PackToolResult> asked = asking.call("ask_user", input.encode());
    String questionId = awaitQuestion("ask-1", Duration.ofSeconds(60));
    assertThat(asked).as("ask_user waits for the answer").isNotDone();

    CliProcess.Result answered = ok("answer", questionId, "--agent", "ask-1", "--select", "yes");
    assertThat(answered.out().lines().toList()).containsExactly("QUESTION" + " ".repeat(questionId.length() - 6) + "ACCEPTED",
      questionId + "  true");
    PackToolResult result = ToolAgent.await(asked, Duration.ofSeconds(30), "the result of ask_user");
    assertThat(new JsonObject(result.getOutputJson())).isEqualTo(new JsonObject().put("answered", true).put("selected", new JsonArray().add("yes")));

    CliProcess.Result again = run("answer", questionId, "--agent", "ask-1", "--select", "no");
    assertThat(again.exit()).as("answered once: a second answer is refused").isEqualTo(1);
    assertThat(again.err()).startsWith("conclave answer: not accepted: ").hasLineCount(1);
    CliProcess.Result noText = run("answer", questionId, "--agent", "ask-1");
    assertThat(noText.exit()).isEqualTo(2);
  }

  /** The id of the question in the agent's conversation, as a user finds it: in its history. */
  private static String awaitQuestion(String agentId, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      CliProcess.Result history = ok("history", agentId, "--limit", "50", "-o", "json");
      Optional<String> id = new JsonObject(history.out()).getJsonArray("events").stream().map(JsonObject.class::cast)
        .map(e -> e.getJsonObject("event").getJsonObject("userQuestion")).filter(q -> q != null)
        .map(q -> q.getString("questionId")).findFirst();
      if (id.isPresent()) {
        return id.get();
      }
    }
    throw new AssertionError("no question in " + agentId + "'s history within " + limit.toSeconds() + " s");
  }

  @Test
  void retireEndsAnAgentsWorkForGood() {
    assertThat(ok("send", "ret-1", "before retiring").out()).isEqualTo("echo: before retiring\n");
    CliProcess.Result retired = ok("retire", "ret-1", "--reason", "e2e");
    assertThat(retired.out().lines().toList()).containsExactly("AGENT  FROM     TO        EVENT", "ret-1  Running  Retiring  RetirementStarted");
    // nothing in flight: Retired follows at once
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String lifecycle = "";
    while (System.nanoTime() < deadline && !lifecycle.equals("Retired")) {
      lifecycle = new JsonObject(ok("agents", "show", "ret-1", "-o", "json").out()).getString("lifecycle", "");
    }
    assertThat(lifecycle).isEqualTo("Retired");
    CliProcess.Result send = run("send", "ret-1", "after retiring");
    assertThat(send.exit()).isEqualTo(1);
    assertThat(send.err()).contains("agent_retired").hasLineCount(1);
    CliProcess.Result twice = run("retire", "ret-1");
    assertThat(twice.exit()).isEqualTo(1);
    assertThat(twice.err()).startsWith("conclave retire: 409 lifecycle_transition_illegal: ").hasLineCount(1);
  }
}
