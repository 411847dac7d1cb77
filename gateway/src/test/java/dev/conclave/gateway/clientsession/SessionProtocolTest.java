package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.HttpJson;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.gateway.support.SessionSocket;
import dev.conclave.proto.coven.Cancelled;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.TokenUsage;
import dev.conclave.proto.coven.ToolApprovalRequest;
import dev.conclave.proto.coven.ToolResult;
import dev.conclave.proto.coven.ToolUse;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.conclave.gateway.support.SessionSocket.op;
import static dev.conclave.gateway.support.SessionSocket.userInput;
import static org.assertj.core.api.Assertions.assertThat;

/** The session protocol (seed 004) over WebSocket against a real node and scripted Coven agents. */
class SessionProtocolTest {

  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  private static SessionSocket admin() {
    return SessionSocket.open(gw.vertx(), gw.node().httpPort(), gw.node().adminToken());
  }

  private static String type(JsonObject frame) {
    return frame.getJsonObject("msg").getString("type");
  }

  /** A message over the WebSocket limit ends the socket with 1009: it used to leave it open and silent (fuzz finding). */
  @Test
  void aMessageOverTheLimitClosesTheSocket() {
    try (SessionSocket s = admin()) {
      s.raw(new JsonObject().put("id", "big").put("op", SessionSocket.userInput("z".repeat(4_300_000)).put("type", "user_input")).encode());
      assertThat(s.awaitClose()).isEqualTo((short) 1009);
    }
  }

  @Test
  void opsBeforeConfigureUnknownOpsAndExtensionsGetErrorsAndTheSessionStaysOpen() {
    try (RawAgent agent = gw.connect("s-errors", gw.agentToken("s-errors")); SessionSocket s = admin()) {
      s.submit("a", userInput("too early"));
      JsonObject early = s.expect("error");
      assertThat(early.getString("id")).isEqualTo("a");
      assertThat(early.getJsonObject("msg").getString("code")).isEqualTo("session_not_configured");
      s.submit("b", op("frobnicate"));
      assertThat(s.expect("error").getJsonObject("msg").getString("message")).contains("unknown op 'frobnicate'");
      for (String ext : List.of("spawn_sub_agent", "knowledge_update", "verification", "cort", "visualization_init")) {
        s.submit("x-" + ext, op(ext));
        JsonObject err = s.expect("error");
        assertThat(err.getJsonObject("msg").getString("code")).isEqualTo("op_unsupported");
        assertThat(err.getJsonObject("msg").getString("message")).contains(ext);
      }
      s.raw("not json");
      assertThat(s.expect("error").getJsonObject("msg").getString("code")).isEqualTo("submission_invalid");
      s.submit("c", op("configure_session").put("agent_id", "nobody-s"));
      assertThat(s.expect("error").getJsonObject("msg").getString("code")).isEqualTo("agent_not_found");
      JsonObject configured = s.configure("s-errors");
      assertThat(configured.getString("agent_id")).isEqualTo("s-errors");
      assertThat(configured.getString("conversation_key")).isEqualTo("s-errors");
      assertThat(configured.getString("lifecycle")).isEqualTo("Running");
      s.submit("d", op("interrupt"));
      assertThat(s.expect("error").getJsonObject("msg").getString("code")).isEqualTo("no_task_running");
    }
  }

  @Test
  void aTaskMapsEveryCovenEventAndExecApprovalIsDecidedExactlyOnce() {
    try (RawAgent agent = gw.connect("s-basic", gw.agentToken("s-basic")); SessionSocket s = admin()) {
      s.configure("s-basic");
      s.submit("s1", userInput("list files"));
      ServerMessage work = agent.next();
      String req = work.getSendMessage().getRequestId();
      assertThat(work.getSendMessage().getContent()).isEqualTo("list files");
      JsonObject started = s.expect("task_started");
      assertThat(started.getString("id")).isEqualTo("s1");
      assertThat(s.expect("user_message").getJsonObject("msg").getString("message")).isEqualTo("list files");

      agent.respond(req, MessageResponse.newBuilder().setThinking("let me look"));
      assertThat(s.expect("agent_reasoning").getJsonObject("msg").getString("text")).isEqualTo("let me look");
      agent.respond(req, MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("call-1")
        .setName("shell").setInputJson("{\"cmd\":\"ls\"}")));
      JsonObject ask = s.expect("exec_approval_request");
      assertThat(ask.getString("id")).isEqualTo("s1");
      assertThat(ask.getJsonObject("msg").getString("call_id")).isEqualTo("call-1");
      assertThat(ask.getJsonObject("msg").getString("tool")).isEqualTo("shell");

      s.submit("ap1", op("exec_approval").put("id", "call-1").put("decision", "allow"));
      ServerMessage decided = agent.next();
      assertThat(decided.getToolApproval().getId()).isEqualTo("call-1");
      assertThat(decided.getToolApproval().getApproved()).isTrue();
      s.expect("exec_approval_decision");
      s.submit("ap2", op("exec_approval").put("id", "call-1").put("decision", "deny"));
      JsonObject twice = s.expect("error");
      assertThat(twice.getString("id")).isEqualTo("ap2");
      assertThat(twice.getJsonObject("msg").getString("code")).isEqualTo("exec_approval_refused");
      assertThat(agent.poll(300)).as("the agent got one decision").isNull();

      agent.respond(req, MessageResponse.newBuilder().setToolUse(ToolUse.newBuilder().setId("call-1").setName("shell").setInputJson("{}")));
      assertThat(s.expect("tool_call_begin").getJsonObject("msg").getString("call_id")).isEqualTo("call-1");
      agent.respond(req, MessageResponse.newBuilder().setToolResult(ToolResult.newBuilder().setId("call-1").setOutput("a.txt")));
      assertThat(s.expect("tool_call_end").getJsonObject("msg").getString("output")).isEqualTo("a.txt");
      String turn1 = s.expect("turn_complete").getJsonObject("msg").getString("response_id");
      assertThat(turn1).startsWith(req + "#");
      agent.respond(req, MessageResponse.newBuilder().setText("Hel"));
      agent.respond(req, MessageResponse.newBuilder().setText("lo"));
      assertThat(s.expect("agent_message_delta").getJsonObject("msg").getString("delta")).isEqualTo("Hel");
      assertThat(s.expect("agent_message_delta").getJsonObject("msg").getString("delta")).isEqualTo("lo");
      agent.respond(req, MessageResponse.newBuilder().setUsage(TokenUsage.newBuilder().setInputTokens(10).setOutputTokens(5)));
      JsonObject tokens = s.expect("token_count").getJsonObject("msg");
      assertThat(tokens.getInteger("input_tokens")).isEqualTo(10);
      assertThat(tokens.getLong("total_tokens")).isEqualTo(15);
      agent.respond(req, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      assertThat(s.expect("agent_message").getJsonObject("msg").getString("message")).isEqualTo("Hello");
      assertThat(s.expect("turn_complete").getJsonObject("msg").getString("response_id")).isEqualTo(req);
      JsonObject complete = s.expect("task_complete");
      assertThat(complete.getString("id")).isEqualTo("s1");
      assertThat(complete.getJsonObject("msg").getString("last_agent_message")).isEqualTo("Hello");

      // a later user_input may continue from the bookmark; an unknown one is refused
      s.submit("s2", userInput("more").put("last_response_id", "not-a-bookmark"));
      assertThat(s.expect("error").getJsonObject("msg").getString("code")).isEqualTo("response_id_unknown");
      s.submit("s3", userInput("more").put("last_response_id", req));
      assertThat(s.expect("task_started").getString("id")).isEqualTo("s3");
    }
  }

  @Test
  void toolStatesBackgroundEventsAndAnAgentsErrorAreMappedAndApprovedForSessionIsApproveAll() {
    try (RawAgent agent = gw.connect("s-more", gw.agentToken("s-more")); SessionSocket s = admin()) {
      s.configure("s-more");
      s.submit("m1", userInput("go"));
      String req = agent.next().getSendMessage().getRequestId();
      s.until("user_message");
      agent.respond(req, MessageResponse.newBuilder().setSessionInit(dev.conclave.proto.coven.SessionInit.newBuilder().setSessionId("backend-7")));
      JsonObject background = s.expect("background_event").getJsonObject("msg");
      assertThat(background.getString("kind")).isEqualTo("session_init");
      assertThat(background.getString("message")).contains("backend-7");
      agent.respond(req, MessageResponse.newBuilder().setToolState(dev.conclave.proto.coven.ToolStateUpdate.newBuilder().setId("c9")
        .setState(dev.conclave.proto.coven.ToolState.TOOL_STATE_RUNNING)));
      JsonObject state = s.expect("tool_call_state").getJsonObject("msg");
      assertThat(state.getString("call_id")).isEqualTo("c9");
      assertThat(state.getString("state")).isEqualTo("running");
      agent.respond(req, MessageResponse.newBuilder().setToolApprovalRequest(ToolApprovalRequest.newBuilder().setId("c9").setName("shell")));
      s.expect("exec_approval_request");
      s.submit("ok", op("exec_approval").put("id", "c9").put("decision", "approved_for_session"));
      ServerMessage decision = agent.next();
      assertThat(decision.getToolApproval().getApproved()).isTrue();
      assertThat(decision.getToolApproval().getApproveAll()).isTrue();
      s.expect("exec_approval_decision");
      agent.respond(req, MessageResponse.newBuilder().setError("model unavailable"));
      JsonObject error = s.expect("error");
      assertThat(error.getString("id")).isEqualTo("m1");
      assertThat(error.getString("event_id")).isNotNull();
      assertThat(error.getJsonObject("msg").getString("message")).isEqualTo("model unavailable");
      s.submit("stop", op("interrupt"));
      assertThat(s.expect("error").getJsonObject("msg").getString("code")).as("the error ended the task").isEqualTo("no_task_running");
    }
  }

  @Test
  void userInputWhileATaskRunsAbortsItAtTheAgentAndStartsANewOne() {
    try (RawAgent agent = gw.connect("s-abort", gw.agentToken("s-abort"), "cancellation"); SessionSocket s = admin()) {
      s.configure("s-abort");
      s.submit("t1", userInput("long job"));
      String first = agent.next().getSendMessage().getRequestId();
      s.until("user_message");
      s.submit("t2", userInput("never mind, do this"));
      ServerMessage cancel = agent.next();
      assertThat(cancel.getCancelRequest().getRequestId()).isEqualTo(first);
      assertThat(cancel.getCancelRequest().getReason()).contains("aborted by a new user_input");
      JsonObject t2Started = s.expect("task_started");
      assertThat(t2Started.getString("id")).isEqualTo("t2");
      s.expect("user_message");
      agent.respond(first, MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason(cancel.getCancelRequest().getReason())));
      JsonObject aborted = s.expect("error");
      assertThat(aborted.getString("id")).isEqualTo("t1");
      assertThat(aborted.getJsonObject("msg").getString("message")).contains("aborted by a new user_input");
      String second = agent.next().getSendMessage().getRequestId();
      agent.respond(second, MessageResponse.newBuilder().setDone(Done.newBuilder().setFullResponse("done")));
      List<JsonObject> rest = s.until("task_complete");
      assertThat(rest).allMatch(f -> f.getString("id").equals("t2"));
    }
  }

  @Test
  void interruptCancelsTheRunningTaskWithAnInterruptedError() {
    try (RawAgent agent = gw.connect("s-int", gw.agentToken("s-int"), "cancellation"); SessionSocket s = admin()) {
      s.configure("s-int");
      s.submit("i1", userInput("work"));
      String req = agent.next().getSendMessage().getRequestId();
      s.until("user_message");
      s.submit("stop", op("interrupt"));
      ServerMessage cancel = agent.next();
      assertThat(cancel.getCancelRequest().getRequestId()).isEqualTo(req);
      agent.respond(req, MessageResponse.newBuilder().setCancelled(Cancelled.newBuilder().setReason("interrupted")));
      JsonObject err = s.expect("error");
      assertThat(err.getString("id")).isEqualTo("i1");
      assertThat(err.getJsonObject("msg").getString("message")).isEqualTo("interrupted");
      s.submit("stop2", op("interrupt"));
      assertThat(s.expect("error").getJsonObject("msg").getString("code")).isEqualTo("no_task_running");
    }
  }

  @Test
  void aReconfigureAbortsTheRunningTask() {
    try (RawAgent agent = gw.connect("s-reconf", gw.agentToken("s-reconf")); SessionSocket s = admin()) {
      s.configure("s-reconf");
      s.submit("r1", userInput("work"));
      agent.next();
      s.until("user_message");
      s.submit("cfg2", op("configure_session").put("agent_id", "s-reconf"));
      // the agent did not declare cancellation: the gateway ends the request itself
      // the aborted task's error comes before or after session_configured (the old follower may
      // still hand it on), never not at all
      List<JsonObject> frames = new java.util.ArrayList<>(s.until("session_configured"));
      if (frames.stream().noneMatch(f -> type(f).equals("error"))) {
        frames.add(s.expect("error"));
      }
      JsonObject err = frames.stream().filter(f -> type(f).equals("error")).findFirst().orElseThrow();
      assertThat(err.getString("id")).isEqualTo("r1");
      assertThat(err.getJsonObject("msg").getString("message")).contains("session reconfigured");
    }
  }

  @Test
  void aReconnectWithTheLastEventIdReplaysWhatWasMissedWithoutGapOrDuplicate() {
    try (RawAgent agent = gw.connect("s-resume", gw.agentToken("s-resume"))) {
      String sessionId;
      String lastSeen;
      String req;
      try (SessionSocket s = admin()) {
        sessionId = s.configure("s-resume").getString("session_id");
        s.submit("u1", userInput("count"));
        req = agent.next().getSendMessage().getRequestId();
        s.until("user_message");
        agent.respond(req, MessageResponse.newBuilder().setText("one "));
        lastSeen = s.expect("agent_message_delta").getString("event_id");
      }
      agent.respond(req, MessageResponse.newBuilder().setText("two "));
      agent.respond(req, MessageResponse.newBuilder().setText("three"));
      agent.respond(req, MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
      try (SessionSocket again = admin()) {
        again.submit("cfg2", op("configure_session").put("agent_id", "s-resume").put("session_id", sessionId).put("last_event_id", lastSeen));
        JsonObject configured = again.expect("session_configured").getJsonObject("msg");
        assertThat(configured.getString("session_id")).isEqualTo(sessionId);
        List<JsonObject> replay = again.until("task_complete");
        assertThat(replay.stream().map(SessionProtocolTest::type).toList())
          .containsExactly("agent_message_delta", "agent_message_delta", "agent_message", "turn_complete", "task_complete");
        assertThat(replay.get(0).getJsonObject("msg").getString("delta")).isEqualTo("two ");
        assertThat(replay).allMatch(f -> f.getString("id").equals("u1"));
        long seen = Long.parseLong(lastSeen.split("\\.")[0]);
        assertThat(Long.parseLong(replay.get(0).getString("event_id").split("\\.")[0])).isEqualTo(seen + 1);
        assertThat(again.poll(300)).isNull();
      }
      // resuming inside one ledger event's events: only the rest of them
      try (SessionSocket third = admin()) {
        String middle = Long.parseLong(lastSeen.split("\\.")[0]) + 3 + ".0";
        third.submit("cfg3", op("configure_session").put("agent_id", "s-resume").put("session_id", sessionId).put("last_event_id", middle));
        third.expect("session_configured");
        assertThat(third.until("task_complete").stream().map(SessionProtocolTest::type).toList()).containsExactly("turn_complete", "task_complete");
      }
    }
  }

  @Test
  void sessionsNeedCredentialsAccessAndCloseWhenRevoked() throws Exception {
    try (RawAgent agent = gw.connect("s-auth", gw.agentToken("s-auth"))) {
      try (HttpJson http = new HttpJson(gw.vertx(), gw.node().httpPort())) {
        assertThat(http.get("not-a-token", "/api/v1/sessions").status()).isEqualTo(401);
      }
      var member = gw.newMember("s-stranger");
      String token = gw.token(member);
      try (SessionSocket s = SessionSocket.open(gw.vertx(), gw.node().httpPort(), token)) {
        s.submit("c", op("configure_session").put("agent_id", "s-auth"));
        assertThat(s.expect("error").getJsonObject("msg").getString("code")).isEqualTo("agent_access_denied");
        s.submit("l", op("lifecycle_transition").put("agent_id", "s-auth").put("to", "paused"));
        assertThat(s.expect("error").getJsonObject("msg").getString("message")).contains("admin");
        GatewayFixture.await(gw.node().runtime().context().tokens().revokeAllOf(member.id(), "test"));
        assertThat(s.awaitClose()).isEqualTo((short) 4001);
      }
    }
  }

  @Test
  void registryAndLifecycleOpsAndEventsReachTheSession() {
    try (RawAgent agent = gw.connect("s-life", gw.agentToken("s-life")); SessionSocket s = admin()) {
      s.submit("q", op("agent_query").put("agent_query", "x"));
      s.expect("error");
      s.submit("reg", op("register_agent").put("agent_id", "s-life-child").put("parent_id", "s-life")
        .put("classification", "Worker.Dev.Code.Helper.Ephemeral.Internal"));
      assertThat(s.expect("agent_registered").getJsonObject("msg").getJsonObject("agent").getString("lifecycle")).isEqualTo("Initialized");
      s.submit("q2", op("agent_query").put("parent_id", "s-life"));
      assertThat(s.expect("agent_query_result").getJsonObject("msg").getJsonArray("agents").getJsonObject(0).getString("agent_id"))
        .isEqualTo("s-life-child");
      s.submit("cfg", op("configure_session").put("agent_query", new JsonObject().put("primary_type", "Worker").put("role", "helper")));
      assertThat(s.expect("session_configured").getJsonObject("msg").getString("agent_id")).isEqualTo("s-life-child");
      s.configure("s-life");
      s.submit("p", op("lifecycle_transition").put("to", "Paused"));
      JsonObject event = s.expect("lifecycle_event").getJsonObject("msg");
      assertThat(event.getString("from")).isEqualTo("Running");
      assertThat(event.getString("to")).isEqualTo("Paused");
      assertThat(event.getString("event")).isEqualTo("Paused");
      assertThat(s.expect("agent_status_changed").getJsonObject("msg").getString("status")).isEqualTo("Paused");
      s.submit("bad", op("lifecycle_transition").put("to", "retired"));
      assertThat(s.expect("error").getJsonObject("msg").getString("code")).isEqualTo("lifecycle_transition_illegal");
      // work sent while paused is held
      s.submit("w", userInput("held"));
      s.expect("task_started");
      s.expect("user_message");
      assertThat(agent.poll(800)).isNull();
      s.submit("r", op("lifecycle_transition").put("to", "running"));
      assertThat(s.expect("lifecycle_event").getJsonObject("msg").getString("event")).isEqualTo("Resumed");
      assertThat(agent.next().getSendMessage().getContent()).isEqualTo("held");
    }
  }
}
