package dev.conclave.e2e.console;

import dev.conclave.agent.ApprovalDecision;
import dev.conclave.e2e.swarm.AgentProgram;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.LongStream;

import static dev.conclave.e2e.console.ConsolePage.DONE;
import static dev.conclave.e2e.console.ConsolePage.EVENT;
import static dev.conclave.e2e.console.ConsolePage.LIVE;
import static dev.conclave.e2e.console.ConsolePage.SHORT;
import static dev.conclave.e2e.console.ConsolePage.agentRow;
import static dev.conclave.e2e.console.ConsolePage.approval;
import static dev.conclave.e2e.console.ConsolePage.card;
import static dev.conclave.e2e.console.ConsolePage.column;
import static dev.conclave.e2e.console.ConsolePage.principalRow;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The web console in a real browser (headless Chromium) against two real node processes in one
 * cluster. The page is opened on node 2 through a {@link FailoverProxy}, as behind a Kubernetes
 * Service, so its origin survives node 2's death. The cases run in order and share the admin's
 * page; each asserts what a user relies on. Every view is saved as a screenshot on the way, in
 * {@code e2e/target/console-screenshots/}; on a failure, {@code e2e/target/console-failures/<test>/}
 * holds each browser's screenshot, console log and DOM, and the nodes' logs.
 *
 * <p>Needs {@code /usr/bin/chromium} and {@code /usr/bin/chromedriver} (Debian's chromium and
 * chromium-driver; other paths with {@code -Dconsole.chromium=… -Dconsole.chromedriver=…}). Run it alone:
 * <pre>
 * mvn -B -ntp install -DskipTests -pl node,agent-sdk -am
 * mvn -B -ntp verify -pl e2e -Dit.test=ConsoleBrowserIT
 * </pre>
 * and regenerate the documentation's screenshots with
 * {@code -Dconsole.screenshots.dir=$PWD/docs/screenshots} added to the second command.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ConsoleBrowserIT {

  /** Fixed names (every run has a database of its own) keep the screenshots the same from run to run. */
  private static final String AGENT_ID = "console-e2e-agent";
  /** The key the member registers: SHA-256 of an ed25519 key blob, and what ssh-keygen -l prints for it. */
  private static final String KEY_HEX = "3e45f3247acea4de878afbff7702c8784fd3b5d5bc527373d6e69cc2dae1f3e5";
  private static final String KEY_OPENSSH = "SHA256:PkXzJHrOpN6Hivv/dwLIeE/TtdW8UnNz1uacwtrh8+U";
  private static final String SWARM_AGENT_ID = "console-swarm-writer";
  private static final String SWARM_TASK = "plan-release";

  private static ConsoleCluster cluster;
  private static FailoverProxy proxy;
  /** The HTTP API of node 1 with the admin token: set-up, and the ledger as the truth. */
  private static ConsoleApi admin;
  private static String adminToken;
  private static String memberId;
  private static String memberToken;
  private static String agentPrincipalId;
  private static String agentToken;
  private static String pendingKeyId;
  private static ScriptedAgent agent;
  /** The swarm agent program of case 7. */
  private static AgentProgram swarmAgent;
  /** The page under test: the admin's, on node 2 through the proxy. */
  private static ConsolePage page;
  /** Another user's browser, with a profile (so cookies) of its own. */
  private static ConsolePage other;

  @RegisterExtension
  static final FailureReport REPORT = new FailureReport(
    () -> Arrays.asList(page, other).stream().filter(Objects::nonNull).map(ConsolePage::browser).toList(), () -> cluster);

  @BeforeAll
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  static void start() throws Exception {
    cluster = new ConsoleCluster(2);
    cluster.startAll();
    adminToken = cluster.adminToken();
    admin = new ConsoleApi(cluster.httpPort(0), adminToken);
    agentPrincipalId = admin.newPrincipal("agent", "Console e2e agent");
    agentToken = admin.newToken(agentPrincipalId);
    memberId = admin.newPrincipal("client", "Mia Member");
    memberToken = admin.newToken(memberId);
    pendingKeyId = ConsoleApi.registerPendingAgent(cluster.grpcPort(0), memberToken, "Mia's laptop", KEY_HEX);
    // the browser's one origin: node 2, and node 1 once node 2 refuses connections
    proxy = new FailoverProxy(List.of(cluster.httpPort(1), cluster.httpPort(0)));
    page = new ConsolePage("admin", proxy.url());
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : Arrays.asList(other, page, agent, swarmAgent, proxy, cluster)) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        System.err.println("clean-up: " + e);
      }
    }
  }

  @Test
  @Order(10)
  @DisplayName("1. the login screen takes a token and leads to the live app")
  void login() {
    page.awaitLoginScreen();
    assertThat(page.connState()).as("#conn-state before logging in").isNotEqualTo("live");
    page.screenshot("login");

    page.logIn(adminToken);
    assertThat(page.browser().present(ConsolePage.LOGIN_SCREEN)).as("the login screen is gone").isFalse();
    assertThat(proxy.connectionsTo(cluster.httpPort(1))).as("the page's connections to node 2").isPositive();
    assertThat(proxy.connectionsTo(cluster.httpPort(0))).as("the page's connections to node 1").isZero();

    // the default view, the cluster: both nodes, as node 2 reports them
    page.browser().awaitTrue(LIVE, "both nodes in #/cluster", () -> page.browser().count("[data-testid=node-row]") == 2);
    assertThat(page.browser().attributes("[data-testid=node-row]", "data-node")).containsExactlyInAnyOrder("node-1", "node-2");
    page.screenshot("cluster");
    // the page runs under the node's Content-Security-Policy: the browser refused nothing of it
    assertThat(page.browser().consoleLog()).as("the page's console").noneMatch(line -> line.contains("Content Security Policy"));
  }

  @Test
  @Order(20)
  @DisplayName("2. an agent connecting on node 1 appears within 2 s in the agents view of node 2's page")
  void anAgentAppears() throws Exception {
    Browser b = adminPage().browser();
    page.go("#/agents");
    b.awaitTrue(LIVE, "the agents view loaded",
      () -> b.present("#agents-title") && !String.valueOf(b.text(".view-head p")).startsWith("Loading"));
    assertThat(b.present(agentRow(AGENT_ID))).as("the agent's row before it connects").isFalse();

    agent = new ScriptedAgent(AGENT_ID, agentToken, cluster.grpcPort(0));
    assertThat(agent.start(Duration.ofSeconds(20))).as("the node that holds the agent's stream").isEqualTo("node-1");
    b.awaitTrue(Duration.ofSeconds(2), "the agent's row, connected", () -> b.present(agentRow(AGENT_ID)));
    page.screenshot("agents");
  }

  @Test
  @Order(30)
  @DisplayName("3. a message sent from the page streams its reply live")
  void aMessageFromThePageStreamsItsReply() throws Exception {
    Browser b = adminPage().browser();
    agent();
    page.openConversation(AGENT_ID);
    int doneBefore = b.count(DONE);

    page.sendMessage("stream s1");
    await(() -> agent.received("stream s1").isDone(), SHORT, "the agent to receive the message sent from the page; the page says " + b.alerts());

    // the agent holds back the second half of its reply until this test has seen the first half
    String firstHalf = ScriptedAgent.reply("s1", ScriptedAgent.STREAMED / 2).strip();
    Set<String> seen = new LinkedHashSet<>();
    b.awaitTrue(SHORT, "the first half of the reply: " + firstHalf, () -> {
      String text = page.replyText("s1");
      if (text != null && !text.isBlank()) {
        seen.add(text.strip());
      }
      return text != null && firstHalf.equals(text.strip());
    });
    assertThat(b.count(DONE)).as("done events while the agent still holds half of its reply").isEqualTo(doneBefore);
    assertThat(seen).as("the reply's text as it grew on the page").hasSizeGreaterThanOrEqualTo(2)
      .allSatisfy(t -> assertThat(firstHalf).startsWith(t));

    agent.release("s1");
    String whole = ScriptedAgent.reply("s1", ScriptedAgent.STREAMED).strip();
    b.awaitTrue(SHORT, "the whole reply: " + whole + ", and its done event", () -> {
      String text = page.replyText("s1");
      return text != null && whole.equals(text.strip()) && b.count(DONE) == doneBefore + 1;
    });
  }

  @Test
  @Order(40)
  @DisplayName("4. a tool approval clicked on the page reaches the agent")
  void aToolApprovalClickedReachesTheAgent() throws Exception {
    Browser b = adminPage().browser();
    agent();
    page.openConversation(AGENT_ID);
    admin.sendMessage(AGENT_ID, "approve a1");
    b.await(approval("tool-a1"), SHORT, "the approval request");
    assertThat(agent.decision("a1")).as("the agent's decision before the click").isNotDone();

    b.click(approval("tool-a1") + " [data-testid=approve]", SHORT, "Approve");
    ApprovalDecision decision = agent.decision("a1").get(10, TimeUnit.SECONDS);
    assertThat(decision.toolId()).isEqualTo("tool-a1");
    assertThat(decision.approved()).as("approved, as the agent's code sees it").isTrue();
    assertThat(decision.automatic()).isFalse();

    b.await(approval("tool-a1") + "[data-decided=approved]", SHORT, "the approval shown as approved");
    b.awaitTrue(SHORT, "the agent's answer after the decision",
      () -> b.texts("[data-testid=assistant-text]").stream().anyMatch(t -> t.contains("The tool was approved.")));
    // one line per state of the tool, and the state nowhere else; its input once, with the tool call
    b.awaitTrue(SHORT, "the tool's last state", () -> page.toolStateLines("tool-a1").contains("completed"));
    assertThat(page.toolStateLines("tool-a1")).as("the lines of tool-a1's states").containsExactly("awaiting_approval", "running", "completed");
    assertThat(b.count("[data-kind=tool_use] .pill")).as("states shown again with the tool call").isZero();
    assertThat(page.codeBlocksShowing("ls -la /srv/a1")).as("blocks showing the tool's input").isEqualTo(1);
    page.screenshot("conversation");
  }

  @Test
  @Order(50)
  @DisplayName("5. a swarm task moves across the board live: ready, claimed, completed")
  void aSwarmTaskMovesAcrossTheBoard() {
    Browser b = adminPage().browser();
    page.go("#/swarm");
    b.await(column("ready"), LIVE, "the task board");
    SwarmCalls swarm = new SwarmCalls(admin, "swarm-writer");
    String task = "release-notes";
    swarm.create(SwarmCalls.task(task, "Write the release notes", "high", "documentation")
      .put("description", "Summarise what changed since the last release"));
    b.await(card("ready", task), SHORT, "the new task in the Ready column");

    assertThat(swarm.claim()).as("the claimed task").isEqualTo(task);
    b.await(card("claimed", task), SHORT, "the task in the Claimed column");
    assertThat(b.present(card("ready", task))).as("the task still in the Ready column").isFalse();

    swarm.complete(task, "release notes written");
    b.await(card("completed", task), SHORT, "the task in the Completed column");
    assertThat(b.present(card("claimed", task))).as("the task still in the Claimed column").isFalse();

    // more work for the screenshot: a task in progress, one ready
    swarm.create(SwarmCalls.task("flaky-login-test", "Fix the flaky login test", "critical", "test"),
      SwarmCalls.task("api-docs-review", "Review the API docs", "low", "review"));
    swarm.progress(swarm.claim(), 60, "running the suite");
    b.await(card("in_progress", "flaky-login-test"), SHORT, "the second task in progress");
    b.await(card("ready", "api-docs-review"), SHORT, "the third task ready");
    // in the 1400 px window every column is in view, Completed, Failed and Cancelled included
    assertThat(((Number) b.js("return window.innerWidth")).intValue()).as("the window's width").isEqualTo(1400);
    assertThat(b.count("[data-testid=swarm-column]")).isEqualTo(9);
    assertThat(page.swarmColumnsOutOfView()).as("columns out of view").isEmpty();
    page.screenshot("swarm");

    b.click(card("completed", task), SHORT, "the completed task's card");
    b.await("[data-testid=task-detail][data-task-id=\"" + task + "\"][data-status=completed]", SHORT, "the task's detail");
    page.screenshot("task-detail");
  }


  @Test
  @Order(52)
  @DisplayName("5a. the board selects tasks and acts on them at once: retry, re-prioritise, cancel")
  void theBoardActsOnManyTasksAtOnce() {
    Browser b = adminPage().browser();
    page.go("#/swarm");
    b.await(column("ready"), LIVE, "the task board");
    JsonArray nobody = new JsonArray().add("a-skill-no-agent-has");
    List<String> ids = List.of("bulk-a", "bulk-b");
    for (String id : ids) {
      admin.post("/api/v1/tasks", SwarmCalls.task(id, "Bulk " + id, "low", "custom").put("requiredSkills", nobody), 201);
      admin.post("/api/v1/tasks/" + id + "/cancel", new JsonObject(), 200);
      b.await(card("cancelled", id), SHORT, id + " in the Cancelled column");
    }
    for (String id : ids) {
      b.click("[data-testid=task-select][data-task-id=\"" + id + "\"]", SHORT, id + "'s selection box");
    }
    b.await("[data-testid=bulk-bar]", SHORT, "the bulk actions");
    assertThat(b.text("[data-testid=bulk-target]")).isEqualTo("2 selected tasks");

    b.click("[data-testid=bulk-retry]", SHORT, "Retry");
    for (String id : ids) {
      b.await(card("ready", id), SHORT, id + " back in the Ready column");
    }
    b.awaitTrue(SHORT, "the outcome", () -> b.text("[data-testid=bulk-outcome]").equals("Retried 2 of 2 matched tasks."));

    b.js("const s = document.querySelector('[data-testid=bulk-priority]'); s.value = 'critical';"
      + " s.dispatchEvent(new Event('change', {bubbles: true}));");
    b.click("[data-testid=bulk-reprioritize]", SHORT, "Set priority");
    b.awaitTrue(SHORT, "the outcome", () -> b.text("[data-testid=bulk-outcome]").equals("Re-prioritised 2 of 2 matched tasks."));
    b.awaitTrue(SHORT, "the cards' priority", () -> ids.stream().allMatch(id ->
      b.text(card("ready", id) + " .pill").equals("critical")));

    b.click("[data-testid=bulk-cancel]", SHORT, "Cancel");
    for (String id : ids) {
      b.await(card("cancelled", id), SHORT, id + " cancelled again");
    }
    b.click("[data-testid=bulk-clear]", SHORT, "Clear selection");
    b.awaitTrue(SHORT, "the bar gone", () -> !b.present("[data-testid=bulk-bar]"));
  }

  @Test
  @Order(55)
  @DisplayName("the admin view lists the principals: a pending key with its fingerprint, owners by name")
  void theAdminViewListsThePrincipals() {
    adminPage().go("#/admin");
    Browser b = page.browser();
    b.await(principalRow(memberId), LIVE, "the member among the principals");
    b.await(principalRow(agentPrincipalId), SHORT, "the agent principal among the principals");
    String pending = principalRow(pendingKeyId) + "[data-status=pending]";
    b.await(pending, SHORT, "the member's pending key");
    assertThat(b.text(pending + " [data-testid=principal-fingerprint]")).as("what the admin compares before approving")
      .contains(KEY_OPENSSH);
    assertThat(b.present(pending + " [data-testid=approve-principal]")).isTrue();
    assertThat(b.text(pending + " [data-testid=principal-owner]")).as("the pending key's owner").contains("Mia Member").doesNotContain(memberId);
    assertThat(b.text(principalRow(agentPrincipalId) + " [data-testid=principal-owner]")).as("the agent's owner, who created it")
      .contains("admin");
    page.screenshot("admin");
  }

  @Test
  @Order(56)
  @DisplayName("the schedules view creates a schedule, lists it with its next run, and deletes it")
  void theSchedulesViewCreatesListsAndDeletesASchedule() {
    Browser b = adminPage().browser();
    page.go("#/schedules");
    b.await("#schedule-create-form", LIVE, "the schedules view");
    b.type("#schedule-name", "nightly-report");
    // once a year, and for skills no agent here has: the schedule makes no task during the run
    b.type("#schedule-rule", "0 3 1 1 *");
    b.type("#schedule-timezone", "Europe/Berlin");
    b.type("#schedule-title", "Nightly report");
    b.type("#schedule-description", "What the swarm did today");
    b.type("#schedule-requiredSkills", "reports, year-end");
    b.js("const s = document.querySelector('#schedule-priority'); s.value = 'high';"
      + " s.dispatchEvent(new Event('change', {bubbles: true}));");
    b.click("[data-testid=schedule-create]", SHORT, "Create schedule");

    String row = "[data-testid=schedule-row][data-schedule=\"nightly-report\"]";
    b.await(row, SHORT, "the new schedule in the list");
    assertThat(b.text(row + " [data-testid=schedule-rule]")).isEqualTo("cron 0 3 1 1 * (Europe/Berlin)");
    assertThat(b.text(row + " [data-testid=schedule-next]")).as("its next run, to come").startsWith("in ");
    assertThat(b.text(row + " [data-testid=schedule-missed]")).isEqualTo("0");
    JsonObject stored = admin.get("/api/v1/schedules/nightly-report");
    assertThat(stored.getString("cron")).isEqualTo("0 3 1 1 *");
    assertThat(stored.getString("timezone")).isEqualTo("Europe/Berlin");
    assertThat(stored.getJsonObject("task").getString("title")).isEqualTo("Nightly report");
    assertThat(stored.getJsonObject("task").getString("priority")).isEqualTo("high");
    assertThat(stored.getJsonObject("task").getJsonArray("requiredSkills")).containsExactly("reports", "year-end");
    page.screenshot("schedules");

    // the page asks before deleting: this browser says yes
    b.js("window.confirm = () => true;");
    b.click(row + " [data-testid=schedule-delete]", SHORT, "Delete");
    b.awaitTrue(SHORT, "the schedule gone from the list", () -> !b.present(row));
    admin.get("/api/v1/schedules/nightly-report", 404);
  }

  @Test
  @Order(57)
  @DisplayName("5b. an agent program's swarm task: the board links it to its live conversation, where its tool is approved")
  void aSwarmTaskIsALiveConversationWhoseToolIsApprovedThere() throws Exception {
    Browser b = adminPage().browser();
    Path dir = Files.createTempDirectory("console-swarm-agent");
    String token = admin.newToken(admin.newPrincipal("agent", "Swarm writer"));
    // ./conclave agent --swarm with the stand-in Claude Code, under the default policy: writing is asked for
    swarmAgent = AgentProgram.start(cluster.grpcPort(0), dir, SWARM_AGENT_ID, token, AgentProgram.installStandIn(dir.resolve("bin")),
      List.of("--swarm", "--skills", "writing", "--claim-wait", "2", "--name", "Swarm writer"));
    swarmAgent.awaitLine("conclave-agent: swarm registered agent=" + SWARM_AGENT_ID, Duration.ofSeconds(60));
    page.go("#/swarm");
    b.await(column("ready"), LIVE, "the task board");
    admin.post("/api/v1/tasks", new JsonObject().put("id", SWARM_TASK).put("title", "Plan the release").put("priority", "high")
      .put("type", "documentation").put("requiredSkills", new JsonArray().add("writing"))
      .put("description", "Write the release plan.\n\nstep: think The plan needs dates, scope and owners\n"
        + "step: write notes/release-plan.md dates, scope, owners\nstep: learn a release plan names an owner per item"), 201);

    // the board: the running task links to its conversation
    String link = "[data-testid=task-conversation][data-task-id=\"" + SWARM_TASK + "\"]";
    b.await(link, LIVE, "the running task's link to its live conversation");
    b.awaitTrue(LIVE, "the task claimed or in progress", () -> b.present(card("in_progress", SWARM_TASK)) || b.present(card("claimed", SWARM_TASK)));
    page.screenshot("swarm-task-link");
    b.click(link, SHORT, "the live conversation link");
    b.await("#conversation[data-agent-id=\"swarm:" + SWARM_TASK + "\"]", SHORT, "the task's conversation");
    b.await("[data-testid=conversation-task][data-task-id=\"" + SWARM_TASK + "\"]", SHORT, "the task named above its conversation");

    // the approval the task's tool waits for is answered here
    String toolId = "toolu_" + SWARM_TASK + "_1";
    b.await(approval(toolId), LIVE, "the approval asked for inside the task");
    assertThat(b.present("[data-testid=conversation-task][data-status=completed]")).as("completed before the approval").isFalse();
    page.screenshot("swarm-task-conversation");
    b.click(approval(toolId) + " [data-testid=approve]", SHORT, "Approve");
    b.await(approval(toolId) + "[data-decided=approved]", SHORT, "the approval shown as approved");
    b.await("[data-testid=conversation-task][data-status=completed]", LIVE, "the task completed, as the banner shows");

    JsonObject task = admin.get("/api/v1/tasks/" + SWARM_TASK);
    assertThat(task.getString("conversationKey")).isEqualTo("swarm:" + SWARM_TASK);
    assertThat(task.getJsonObject("result").getJsonArray("filesCreated")).containsExactly("notes/release-plan.md");
    assertThat(task.getJsonObject("result").getJsonArray("learnings")).containsExactly("a release plan names an owner per item");
    assertThat(Files.readString(dir.resolve("work-" + SWARM_AGENT_ID).resolve("notes/release-plan.md"))).contains("dates, scope, owners");
    assertThat(swarmAgent.terminate(Duration.ofSeconds(30))).as("the agent program's exit code").isZero();
  }

  @Test
  @Order(60)
  @DisplayName("6. node 2 killed: the page reconnects through node 1 and shows what happened meanwhile, without a gap")
  void thePageSurvivesTheDeathOfItsNode() throws Exception {
    Browser b = adminPage().browser();
    agent();
    page.openConversation(AGENT_ID);
    long shown = admin.lastSeq(AGENT_ID);
    b.awaitTrue(SHORT, "the page showing the ledger up to seq " + shown, () -> page.seqs().contains(shown));
    int viaNode1 = proxy.connectionsTo(cluster.httpPort(0));

    // node 2 dies, and for a while the Service still sends connections its way: they fail
    long last;
    proxy.blackout(true);
    try {
      cluster.node(1).kill();
      page.awaitConnState("reconnecting", SHORT);

      // meanwhile the agent, on node 1, answers a message sent to node 1
      long before = admin.lastSeq(AGENT_ID);
      admin.sendMessage(AGENT_ID, "burst o1");
      await(() -> admin.doneAfter(AGENT_ID, before), Duration.ofSeconds(20), "the agent's reply in the ledger (node 1)");
      last = admin.lastSeq(AGENT_ID);
      assertThat(page.connState()).as("#conn-state once the reply is written").isEqualTo("reconnecting");
      assertThat(page.replyText("o1")).as("the reply on the page before it reconnects").isNull();
    } finally {
      proxy.blackout(false);
    }
    page.awaitConnState("live", Duration.ofSeconds(20));
    assertThat(proxy.connectionsTo(cluster.httpPort(0))).as("connections the proxy sent to node 1").isGreaterThan(viaNode1);

    b.awaitTrue(LIVE, "the page caught up to seq " + last, () -> page.seqs().contains(last));
    List<Long> seqs = page.seqs();
    assertThat(seqs).as("data-seq of the events shown: each once").doesNotHaveDuplicates();
    assertThat(seqs.stream().sorted().toList()).as("data-seq of the events shown: no gap")
      .isEqualTo(LongStream.rangeClosed(1, last).boxed().toList());
    assertThat(page.replyText("o1")).as("the reply written while the page was down")
      .isNotNull().isEqualToIgnoringWhitespace(ScriptedAgent.reply("o1", ScriptedAgent.STREAMED));
  }

  @Test
  @Order(70)
  @DisplayName("7. a member's page cannot subscribe to another principal's conversation")
  void aMemberCannotFollowAnotherPrincipalsConversation() throws Exception {
    agent();
    other = new ConsolePage("member", proxy.url());
    other.logIn(memberToken);
    other.go("#/conversation/" + AGENT_ID);
    other.browser().await("[data-testid=subscription-error]", SHORT, "the subscription error");

    // the agent answers the admin meanwhile: none of it may reach the member's page
    long before = admin.lastSeq(AGENT_ID);
    admin.sendMessage(AGENT_ID, "burst m1");
    await(() -> admin.doneAfter(AGENT_ID, before), Duration.ofSeconds(20), "the agent's reply in the ledger");
    Browser.sleep(1000);
    assertThat(other.browser().count(EVENT)).as("events of the conversation on the member's page").isZero();
    assertThat(other.replyText("m1")).isNull();
    closeOther();
  }

  @Test
  @Order(80)
  @DisplayName("8. a browser with no session gets the login screen and no event")
  @SuppressWarnings("unchecked")
  void aBrowserWithoutASessionGetsNothing() throws Exception {
    agent();
    other = new ConsolePage("anonymous", proxy.url());
    other.awaitLoginScreen();

    // even a script of the page that opens the bridge itself gets no event
    other.startBridgeProbe(List.of("conclave.events.presence", "conclave.events.swarm", "conclave.events.conversation." + AGENT_ID));
    long before = admin.lastSeq(AGENT_ID);
    admin.sendMessage(AGENT_ID, "burst n1");
    admin.post("/api/v1/tasks", new JsonObject().put("title", "A task no page without a session may see"), 201);
    await(() -> admin.doneAfter(AGENT_ID, before), Duration.ofSeconds(20), "the agent's reply in the ledger");
    Browser.sleep(1000);

    var probe = other.probe();
    assertThat((List<Object>) probe.get("messages")).as("messages the bridge sent to a socket without a session").isEmpty();
    assertThat((List<Object>) probe.get("errors")).as("the bridge's refusals of its subscriptions").isNotEmpty();
    Browser b = other.browser();
    assertThat(b.present(ConsolePage.LOGIN_SCREEN)).as("the login screen").isTrue();
    assertThat(b.count("[data-testid=agent-row]")).as("agent rows").isZero();
    assertThat(b.count(EVENT)).as("conversation events").isZero();
    assertThat(other.connState()).as("#conn-state without a session").isNotEqualTo("live");
    closeOther();
  }

  /** The admin's page, logged in (when a case runs on its own, or after an earlier one failed). */
  private static ConsolePage adminPage() {
    if (page.browser().present(ConsolePage.LOGIN_SCREEN)) {
      page.logIn(adminToken);
    }
    return page;
  }

  /** The agent, connected to node 1 (case 2 connects it; a case run on its own does it here). */
  private static ScriptedAgent agent() throws Exception {
    if (agent == null) {
      agent = new ScriptedAgent(AGENT_ID, agentToken, cluster.grpcPort(0));
      agent.start(Duration.ofSeconds(20));
    }
    return agent;
  }

  private static void closeOther() {
    ConsolePage p = other;
    other = null;
    p.close();
  }

  private static void await(BooleanSupplier condition, Duration limit, String what) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      Browser.sleep(100);
    }
    throw new AssertionError("waited " + limit.toMillis() + " ms for " + what);
  }
}
