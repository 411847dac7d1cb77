package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.lifecycle.LifecycleState;
import dev.conclave.gateway.registry.AgentQuery;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import io.vertx.core.Future;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * One UI's session over one WebSocket (seed 004): submissions {@code {"id", "op"}} in, events
 * {@code {"id", "event_id"?, "msg"}} out, one JSON message per text frame. A task is a gateway request
 * in the session's conversation; its events come from the conversation's ledger (so every session
 * following the conversation sees them, and a reconnect resumes by {@code event_id}). Submissions are
 * handled one at a time, in order: the socket is paused while one runs.
 */
public final class ClientSession {

  private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);
  static final int MAX_SUB_ID = 60;
  static final short CLOSE_REVOKED = 4001;
  static final short CLOSE_GOING_AWAY = 1001;

  private record Task(UUID requestId, String subId) {
  }

  private final SessionDeps deps;
  private final Caller caller;
  private final ServerWebSocket ws;
  private final Map<UUID, String> subIds = lru(1000);
  private final Map<UUID, Boolean> ended = lru(1000);
  private UUID sessionId;
  private String agentId;
  private String conversationKey;
  private Task task;
  private SessionFollower follower;
  /** A resume point inside one ledger event: its first {@code skipUpTo + 1} session events were seen. */
  private long skipSeq = -1;
  private int skipUpTo = -1;
  private boolean closed;
  private Runnable onClose = () -> { };

  public ClientSession(SessionDeps deps, Caller caller, ServerWebSocket ws) {
    this.deps = deps;
    this.caller = caller;
    this.ws = ws;
  }

  /** Starts reading submissions; {@code onClose} runs once when the socket is gone. */
  public void start(Runnable onClose) {
    this.onClose = onClose;
    ws.textMessageHandler(this::onText);
    ws.binaryMessageHandler(b -> send("", error(GatewayErrors.badSubmission("binary frames are not accepted: send one JSON submission per text frame"))));
    ws.closeHandler(v -> stopped());
    ws.exceptionHandler(err -> stopped());
  }

  /** Ends the session from the gateway's side (credentials revoked, node stopping). */
  public void close(short code, String reason) {
    if (closed) {
      return;
    }
    stopped();
    ws.close(code, reason.length() > 120 ? reason.substring(0, 120) : reason);
  }

  private void stopped() {
    if (closed) {
      return;
    }
    closed = true;
    if (follower != null) {
      follower.stop();
    }
    onClose.run();
  }

  private void onText(String text) {
    JsonObject submission;
    try {
      submission = new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      send("", error(GatewayErrors.badSubmission("not a JSON object: a submission is {\"id\": \"…\", \"op\": {\"type\": \"…\", …}}")));
      return;
    }
    String id = submission.getValue("id") instanceof String s ? s : "";
    if (!(submission.getValue("op") instanceof JsonObject op) || !(op.getValue("type") instanceof String type) || type.isBlank()) {
      send(id, error(GatewayErrors.badSubmission("a submission is {\"id\": \"…\", \"op\": {\"type\": \"…\", …}}")));
      return;
    }
    ws.pause();
    Future<Void> done;
    try {
      done = handle(id, type, op);
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    done.onComplete(ar -> {
      if (ar.failed()) {
        send(id, error(Failures.classify(ar.cause())));
      }
      if (!closed) {
        ws.resume();
      }
    });
  }

  private Future<Void> handle(String id, String type, JsonObject op) {
    if (Ops.unsupported(type)) {
      return Future.failedFuture(GatewayErrors.unsupportedOp(type));
    }
    if (Ops.NEED_SESSION.contains(type) && agentId == null) {
      return Future.failedFuture(GatewayErrors.sessionNotConfigured(type));
    }
    return switch (type) {
      case Ops.CONFIGURE_SESSION -> configure(id, op);
      case Ops.USER_INPUT -> userInput(id, op);
      case Ops.INTERRUPT -> interrupt();
      case Ops.EXEC_APPROVAL -> approval(op);
      case Ops.AGENT_QUERY -> deps.registry().query(caller, AgentQuery.fromJson(body(op)))
        .map(agents -> send(id, EventMapping.msg("agent_query_result").put("agents", new JsonArray(agents))));
      case Ops.REGISTER_AGENT -> admin(type).compose(v -> deps.registry().register(caller, body(op)))
        .map(entry -> send(id, EventMapping.msg("agent_registered").put("agent", entry)));
      case Ops.LIFECYCLE_TRANSITION -> lifecycle(id, op);
      default -> Future.failedFuture(GatewayErrors.unknownOp(type));
    };
  }

  // ---- ops ----------------------------------------------------------------------------------------

  private Future<Void> configure(String id, JsonObject op) {
    Optional<String> byId = text(op, "agent_id");
    Object query = op.getValue("agent_query");
    if (byId.isEmpty() && !(query instanceof JsonObject)) {
      return Future.failedFuture(GatewayErrors.badSubmission("configure_session needs agent_id, or agent_query (an object)"));
    }
    Optional<UUID> givenSession = text(op, "session_id").map(ClientSession::sessionUuid);
    Optional<String> lastEventId = text(op, "last_event_id");
    Optional<long[]> resumeAt = lastEventId.map(ClientSession::eventId);
    Future<String> agent = byId.isPresent()
      ? deps.registryStore().find(byId.get()).compose(e -> e.isPresent() ? Future.succeededFuture(byId.get())
        : Future.failedFuture(GatewayErrors.agentNotFound(byId.get())))
      : deps.registry().query(caller, AgentQuery.fromJson((JsonObject) query)).compose(ClientSession::pick);
    return agent.compose(a -> deps.conversations().agents().require(caller, a).map(a)).compose(a -> {
      String key = text(op, "conversation_key").orElse(a);
      return deps.conversations().require(caller, key).compose(v -> givenSession.isEmpty() ? Future.succeededFuture(Optional.<dev.conclave.gateway.store.ClientSessionStore.Stored>empty())
        : deps.sessions().find(givenSession.get())).compose(stored -> {
        if (stored.isPresent() && !stored.get().principalId().equals(caller.principalId())) {
          return Future.failedFuture(GatewayErrors.sessionNotYours(givenSession.get().toString()));
        }
        boolean resume = stored.isPresent() && resumeAt.isPresent();
        Future<Void> aborted = !resume && task != null ? abort(task, "session reconfigured") : Future.succeededFuture();
        UUID sid = givenSession.orElseGet(UUID::randomUUID);
        return aborted.compose(v -> deps.sessions().configure(sid, caller.principalId(), a, key, resume)).compose(mine -> {
          if (!mine) {
            return Future.failedFuture(GatewayErrors.sessionNotYours(sid.toString()));
          }
          return restoreTask(resume ? stored : Optional.empty()).compose(v -> follow(sid, a, key, resumeAt));
        }).compose(from -> deps.lifecycle().state(a).map(state -> send(id, EventMapping.msg("session_configured")
          .put("session_id", sid.toString()).put("agent_id", a).put("conversation_key", key).put("last_event_id", from + "")
          .put("lifecycle", state.map(LifecycleState::display).orElse(null))
          .put("task_running", task != null).put("task_id", task == null ? null : task.subId()))));
      });
    });
  }

  private Future<Void> restoreTask(Optional<dev.conclave.gateway.store.ClientSessionStore.Stored> stored) {
    task = null;
    if (stored.isEmpty() || stored.get().taskRequestId().isEmpty()) {
      return Future.succeededFuture();
    }
    UUID request = stored.get().taskRequestId().get();
    return deps.requests().find(request).map(r -> {
      if (r.isPresent() && !r.get().state().ended()) {
        task = new Task(request, stored.get().taskSubId().orElse(""));
      }
      return null;
    });
  }

  private Future<Long> follow(UUID sid, String agent, String key, Optional<long[]> resumeAt) {
    if (follower != null) {
      follower.stop();
    }
    sessionId = sid;
    agentId = agent;
    conversationKey = key;
    skipSeq = resumeAt.map(r -> r[1] >= 0 ? r[0] : -1L).orElse(-1L);
    skipUpTo = resumeAt.map(r -> (int) r[1]).orElse(-1);
    Optional<Long> after = resumeAt.map(r -> r[1] >= 0 ? r[0] - 1 : r[0]);
    follower = new SessionFollower(deps.vertx(), deps.ledger(), key, this::deliver, ws::writeQueueFull, drain -> ws.drainHandler(v -> drain.run()));
    return follower.start(after);
  }

  private Future<Void> userInput(String id, JsonObject op) {
    if (id.isEmpty() || id.length() > MAX_SUB_ID) {
      return Future.failedFuture(GatewayErrors.badSubmission("a user_input's id must be 1 to " + MAX_SUB_ID + " characters"));
    }
    if (!(op.getValue("items") instanceof JsonArray items) || items.isEmpty()) {
      return Future.failedFuture(GatewayErrors.badSubmission("user_input needs items: [{\"type\": \"text\", \"text\": \"…\"}]"));
    }
    StringBuilder content = new StringBuilder();
    for (Object item : items) {
      if (!(item instanceof JsonObject i) || !"text".equals(i.getValue("type")) || !(i.getValue("text") instanceof String t)) {
        return Future.failedFuture(GatewayErrors.badSubmission("each user_input item must be {\"type\": \"text\", \"text\": \"…\"};"
          + " other item types (images) are not supported"));
      }
      content.append(content.length() == 0 ? "" : "\n").append(t);
    }
    Future<Void> bookmark = text(op, "last_response_id").map(this::checkBookmark).orElse(Future.succeededFuture());
    return bookmark.compose(v -> task != null ? abort(task, "aborted by a new user_input") : Future.succeededFuture())
      .compose(v -> deps.mailbox().send(caller, ClientSendMessageRequest.newBuilder().setConversationKey(conversationKey)
        .setContent(content.toString()).setIdempotencyKey("ui:" + sessionId + ":" + id).build()))
      .compose(accepted -> {
        if (accepted.duplicate() || accepted.requestId().isEmpty()) {
          return Future.failedFuture(GatewayErrors.badSubmission("submission id '" + id + "' was already used in this session"));
        }
        UUID request = accepted.requestId().get();
        subIds.put(request, id);
        if (!ended.containsKey(request)) {
          task = new Task(request, id);
        }
        return deps.sessions().task(sessionId, request, id);
      });
  }

  private Future<Void> checkBookmark(String responseId) {
    Optional<UUID> request = ResponseIds.request(responseId);
    if (request.isEmpty()) {
      return Future.failedFuture(GatewayErrors.unknownResponseId(responseId));
    }
    return deps.requests().find(request.get()).compose(r -> r.isPresent() && r.get().conversationKey().equals(conversationKey)
      ? Future.succeededFuture() : Future.failedFuture(GatewayErrors.unknownResponseId(responseId)));
  }

  private Future<Void> interrupt() {
    if (task == null) {
      return Future.failedFuture(GatewayErrors.noTaskRunning());
    }
    return abort(task, "interrupted");
  }

  /** Cancels the task's request (at the agent, when it is in flight); one that already ended is left alone. */
  private Future<Void> abort(Task t, String reason) {
    return deps.requests().find(t.requestId()).compose(r -> r.isEmpty() || r.get().state().ended() ? Future.succeededFuture()
      : deps.cancellation().cancel(caller, r.get(), reason).<Void>mapEmpty()
        .recover(err -> err instanceof ConclaveException ce && ce.code().equals("request_finished")
          ? Future.succeededFuture() : Future.failedFuture(err)));
  }

  private Future<Void> approval(JsonObject op) {
    Optional<String> callId = text(op, "id");
    Optional<String> decision = text(op, "decision");
    if (callId.isEmpty() || decision.isEmpty()) {
      return Future.failedFuture(GatewayErrors.badSubmission("exec_approval needs id (the call_id of the exec_approval_request) and decision"));
    }
    boolean approved;
    boolean forSession = false;
    switch (decision.get()) {
      case "approved", "allow" -> approved = true;
      case "approved_for_session" -> {
        approved = true;
        forSession = true;
      }
      case "denied", "deny", "abort" -> approved = false;
      default -> {
        return Future.failedFuture(GatewayErrors.badSubmission("decision must be approved, approved_for_session, denied or abort"));
      }
    }
    ApproveToolRequest request = ApproveToolRequest.newBuilder().setAgentId(agentId).setToolId(callId.get())
      .setApproved(approved).setApproveAll(forSession).build();
    return deps.conversations().agents().require(caller, agentId).compose(v -> deps.approvals().decide(caller, request))
      .compose(r -> r.getSuccess() || r.getError().startsWith("decision recorded") ? Future.<Void>succeededFuture()
        : Future.failedFuture(GatewayErrors.approvalRefused(r.getError())));
  }

  private Future<Void> lifecycle(String id, JsonObject op) {
    Optional<String> to = text(op, "to");
    if (to.isEmpty()) {
      return Future.failedFuture(GatewayErrors.required("to"));
    }
    LifecycleState state = LifecycleState.parse(to.get()).orElseThrow(() -> GatewayErrors.badLifecycleState(to.get()));
    String target = text(op, "agent_id").orElse(agentId);
    if (target == null) {
      return Future.failedFuture(GatewayErrors.required("agent_id"));
    }
    String reason = text(op, "reason").orElse("operator request (session " + (sessionId == null ? "-" : sessionId) + ")");
    return admin(Ops.LIFECYCLE_TRANSITION).compose(v -> deps.lifecycle().transition(target, state, reason, Optional.of(caller.principalId())))
      .map(t -> {
        // a session following the agent's own conversation sees the LifecycleEvent there
        if (!target.equals(conversationKey)) {
          JsonObject event = t.lifecycleEvent();
          event.remove("type");
          send(id, EventMapping.msg("lifecycle_event").mergeIn(event));
        }
        return null;
      });
  }

  private Future<Void> admin(String op) {
    try {
      Audience.ADMINS.check(caller, "session op " + op);
      return Future.succeededFuture();
    } catch (ConclaveException e) {
      return Future.failedFuture(e);
    }
  }

  // ---- events -------------------------------------------------------------------------------------

  /** Sends the session events of one ledger event, each with its {@code event_id} ({@code <seq>.<n>}). */
  private Future<Void> deliver(LedgerEvent e) {
    return subIdOf(e).map(sub -> {
      List<JsonObject> msgs = EventMapping.map(e);
      for (int k = 0; k < msgs.size(); k++) {
        if (e.seq() == skipSeq && k <= skipUpTo) {
          continue;
        }
        write(new JsonObject().put("id", sub).put("event_id", e.seq() + "." + k).put("msg", msgs.get(k)));
      }
      if (EventMapping.endsTask(e) && e.requestId().isPresent()) {
        ended.put(e.requestId().get(), true);
        if (task != null && task.requestId().equals(e.requestId().get())) {
          task = null;
        }
      }
      return null;
    });
  }

  /** The submission id of the user_input that started the event's task: kept in its request's idempotency key. */
  private Future<String> subIdOf(LedgerEvent e) {
    if (e.requestId().isEmpty()) {
      return Future.succeededFuture("");
    }
    UUID request = e.requestId().get();
    String known = subIds.get(request);
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return deps.requests().idempotencyKey(request).map(key -> {
      String sub = key.filter(k -> k.startsWith("ui:") && k.length() > 40).map(k -> k.substring(40)).orElse(request.toString());
      subIds.put(request, sub);
      return sub;
    });
  }

  private Void send(String id, JsonObject msg) {
    write(new JsonObject().put("id", id).put("msg", msg));
    return null;
  }

  private void write(JsonObject frame) {
    if (closed) {
      return;
    }
    ws.writeTextMessage(frame.encode()).onFailure(err -> LOG.debug("session frame not written session={} error={}", sessionId, err.getMessage()));
  }

  private static JsonObject error(ConclaveException e) {
    return EventMapping.msg("error").put("message", e.detail()).put("code", e.code());
  }

  // ---- parsing ------------------------------------------------------------------------------------

  private static Future<String> pick(List<JsonObject> agents) {
    return agents.stream().filter(a -> "connected".equals(a.getString("status")) && "Running".equals(a.getString("lifecycle"))).findFirst()
      .or(() -> agents.stream().findFirst())
      .map(a -> Future.succeededFuture(a.getString("agent_id")))
      .orElseGet(() -> Future.failedFuture(GatewayErrors.noAgentMatches()));
  }

  private static JsonObject body(JsonObject op) {
    JsonObject copy = op.copy();
    copy.remove("type");
    return copy;
  }

  private static Optional<String> text(JsonObject op, String field) {
    Object v = op.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw GatewayErrors.badSubmission(field + " must be a string");
    }
    return Optional.ofNullable((String) v).filter(s -> !s.isBlank());
  }

  private static UUID sessionUuid(String s) {
    try {
      return UUID.fromString(s);
    } catch (IllegalArgumentException e) {
      throw GatewayErrors.badSubmission("session_id must be one that session_configured gave (a UUID)");
    }
  }

  /** {@code "<seq>"} or {@code "<seq>.<n>"}: as {seq, n}, n = -1 when absent. */
  private static long[] eventId(String s) {
    try {
      int dot = s.indexOf('.');
      long[] out = dot < 0 ? new long[] {Long.parseLong(s), -1} : new long[] {Long.parseLong(s.substring(0, dot)), Long.parseLong(s.substring(dot + 1))};
      if (out[0] < 0 || (dot >= 0 && out[0] < 1) || out[1] < -1) {
        throw new NumberFormatException();
      }
      return out;
    } catch (NumberFormatException e) {
      throw GatewayErrors.badSubmission("last_event_id must be an event_id this session sent ('<seq>.<n>'), got '" + s + "'");
    }
  }

  private static <K, V> Map<K, V> lru(int max) {
    return new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > max;
      }
    };
  }
}
