package dev.conclave.e2e.sessions;

import dev.conclave.e2e.support.AgentProcess;
import dev.conclave.e2e.support.LocalCluster;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.conclave.e2e.sessions.NdjsonClient.op;
import static dev.conclave.e2e.sessions.NdjsonClient.types;
import static dev.conclave.e2e.sessions.NdjsonClient.userInput;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seed 004's two diagrams, "Basic UI Flow" and "Task Interrupt", driven through
 * {@code conclave session} over NDJSON against a two-node cluster of real processes: the session's
 * client talks to node 1, the agent (its own process) is connected to node 2, and between the flows
 * an admin pauses the agent (its new work is held) and resumes it (the work is delivered), over
 * node 1's HTTP API.
 */
class SessionFlowsIT {

  private static LocalCluster cluster;
  private static Vertx vertx;
  private static WebClient http;

  @BeforeAll
  static void start() throws Exception {
    cluster = new LocalCluster(2, "gateway", "session-flows-secret-0123456789abcdef0123456789", 5);
    cluster.startAll();
    vertx = Vertx.vertx();
    http = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    http.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    cluster.close();
  }

  private static JsonObject lifecycle(String agentId, String to) throws Exception {
    var r = http.post(cluster.httpPort(0), "127.0.0.1", "/api/v1/gateway/agents/" + agentId + "/lifecycle")
      .bearerTokenAuthentication(cluster.adminToken()).sendJsonObject(new JsonObject().put("to", to).put("reason", "e2e"))
      .await(15, TimeUnit.SECONDS);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  @Test
  void theBasicUiFlowAndTheTaskInterruptFlowWithAPauseOnAnotherNodeInBetween() throws Exception {
    String admin = cluster.adminToken();
    try (AgentProcess agent = AgentProcess.startMain(FlowAgentMain.class, Integer.toString(cluster.grpcPort(1)),
           cluster.agentToken("flow-agent"), "flow-agent")) {
      assertThat(agent.await("registered")).isEqualTo("node-2");
      try (NdjsonClient ui = new NdjsonClient(admin, "--agent", "flow-agent", "--linger-ms", "500",
             "--url", "http://127.0.0.1:" + cluster.httpPort(0) + ",http://127.0.0.1:" + cluster.httpPort(1))) {
        flows(agent, ui);
      }
    }
  }

  private static void flows(AgentProcess agent, NdjsonClient ui) throws Exception {
    // Op::ConfigureSession -> Event::SessionConfigured
    JsonObject configured = ui.next();
    assertThat(configured.getJsonObject("msg").getString("type")).as(configured.encode()).isEqualTo("session_configured");
    assertThat(configured.getJsonObject("msg").getString("lifecycle")).isEqualTo("Running");

    // ---- Basic UI Flow ------------------------------------------------------------------------
    ui.submit("b1", userInput("basic: fix the failing test"));
    List<JsonObject> asked = ui.until("exec_approval_request");
    assertThat(types(asked)).containsExactly("task_started", "user_message", "exec_approval_request");
    assertThat(asked).allMatch(e -> e.getString("id").equals("b1"));
    String callId = asked.get(2).getJsonObject("msg").getString("call_id");
    ui.submit("a1", op("exec_approval").put("id", callId).put("decision", "approved"));
    assertThat(agent.await("approved")).isEqualTo("exec-1 true");
    List<JsonObject> rest = ui.until("task_complete");
    assertThat(types(rest)).containsExactly(
      "exec_approval_decision",
      "tool_call_begin", "tool_call_end", "turn_complete",   // ExecStart, ExecStop, TurnComplete
      "tool_call_begin", "tool_call_end", "turn_complete",   // the auto-approved patch
      "agent_message_delta", "agent_message_delta", "agent_message", "turn_complete", "task_complete");
    assertThat(rest).allMatch(e -> e.getString("id").equals("b1"));
    assertThat(rest.get(9).getJsonObject("msg").getString("message")).isEqualTo("Fixed the bug.");

    // ---- the agent, on node 2, is paused from node 1: its new work is held ----------------------
    assertThat(lifecycle("flow-agent", "paused").getString("to")).isEqualTo("Paused");
    List<JsonObject> paused = ui.until("agent_status_changed");
    assertThat(paused.get(0).getJsonObject("msg").getString("event")).isEqualTo("Paused");
    ui.submit("p1", userInput("while paused"));
    assertThat(types(ui.until("user_message"))).containsExactly("task_started", "user_message");
    assertThat(agent.poll("got", 2500)).as("a paused agent gets no new work").isNull();
    assertThat(lifecycle("flow-agent", "running").getString("event")).isEqualTo("Resumed");
    assertThat(agent.await("got")).isEqualTo("while paused");
    List<JsonObject> resumed = ui.until("task_complete");
    assertThat(types(resumed)).startsWith("lifecycle_event", "agent_status_changed").endsWith("agent_message", "turn_complete", "task_complete");
    assertThat(resumed.get(resumed.size() - 1).getString("id")).isEqualTo("p1");

    // ---- Task Interrupt -------------------------------------------------------------------------
    ui.submit("t1", userInput("interrupt: build and run the slow suite"));
    List<JsonObject> task1 = ui.until("turn_complete");
    assertThat(types(task1)).containsExactly("task_started", "user_message", "tool_call_begin", "tool_call_end", "turn_complete");
    String lastResponseId = task1.get(4).getJsonObject("msg").getString("response_id");
    assertThat(ui.next().getJsonObject("msg").getString("type")).isEqualTo("tool_call_begin");
    ui.submit("i1", op("interrupt"));
    assertThat(agent.await("cancel")).isEqualTo("interrupted");
    JsonObject interrupted = ui.next();
    assertThat(interrupted.getString("id")).isEqualTo("t1");
    assertThat(interrupted.getJsonObject("msg").getString("type")).isEqualTo("error");
    assertThat(interrupted.getJsonObject("msg").getString("message")).isEqualTo("interrupted");

    ui.submit("t2", userInput("and now just the notes").put("last_response_id", lastResponseId));
    List<JsonObject> task2 = ui.until("task_complete");
    assertThat(types(task2)).containsExactly("task_started", "user_message", "tool_call_begin", "tool_call_end", "turn_complete",
      "agent_message_delta", "agent_message", "turn_complete", "task_complete");
    assertThat(task2).allMatch(e -> e.getString("id").equals("t2"));

    // every event the session sent carried a distinct, increasing event id: no duplicate
    List<String> ids = ui.transcript.stream().filter(e -> e.containsKey("event_id")).map(e -> e.getString("event_id")).toList();
    assertThat(ids).doesNotHaveDuplicates();
    assertThat(ui.finish()).isZero();
  }
}
