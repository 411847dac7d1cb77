package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.platform.access.AccessTarget;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.collections.Lru;
import dev.conclave.gateway.store.ClientSessionStore;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import io.vertx.core.Future;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * One UI's session over one WebSocket (seed 004): submissions {@code {"id", "op"}} in, events
 * {@code {"id", "event_id"?, "msg"}} out, one JSON message per text frame. A task is a gateway request
 * in the session's conversation; its events come from the conversation's ledger (so every session
 * following the conversation sees them, and a reconnect resumes by {@code event_id}). Submissions are
 * handled one at a time, in order: the socket is paused while one runs. The session's agent and
 * conversation are re-checked whenever access changes; when the caller loses either, the socket
 * closes with {@value #CLOSE_ACCESS_REVOKED}.
 */
public final class ClientSession {

  private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);
  static final int MAX_SUB_ID = 60;
  static final short CLOSE_REVOKED = 4001;
  /** The caller lost access to the session's agent or conversation (a grant taken back, a binding moved, a role removed). */
  public static final short CLOSE_ACCESS_REVOKED = 4003;
  static final short CLOSE_GOING_AWAY = 1001;

  private record Task(UUID requestId, String subId) {
  }

  private final RegistryOps registryOps;
  private final TaskOps tasks;
  private final SessionRecords records;
  private final ConversationFeeds feeds;
  private final Caller caller;
  private final ServerWebSocket ws;
  private final Map<UUID, String> subIds = Lru.map(1000);
  private final Map<UUID, Boolean> ended = Lru.map(1000);
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
  /** What re-checks the caller's access to the session's agent and conversation; retargeted as the session is configured. */
  private LiveAccess.Watch access;

  public ClientSession(RegistryOps registryOps, TaskOps tasks, SessionRecords records, ConversationFeeds feeds, Caller caller,
                       ServerWebSocket ws) {
    this.registryOps = registryOps;
    this.tasks = tasks;
    this.records = records;
    this.feeds = feeds;
    this.caller = caller;
    this.ws = ws;
  }

  /** What opens a session on an upgraded socket, with the node's shared collaborators. */
  public static BiFunction<Caller, ServerWebSocket, ClientSession> opener(RegistryOps registryOps, TaskOps tasks, SessionRecords records,
                                                                         ConversationFeeds feeds) {
    return (caller, ws) -> new ClientSession(registryOps, tasks, records, feeds, caller, ws);
  }

  /**
   * Starts reading submissions; {@code access} is retargeted to what the session follows as it is
   * configured; {@code onClose} runs once when the socket is gone.
   */
  public void start(LiveAccess.Watch access, Runnable onClose) {
    this.access = access;
    this.onClose = onClose;
    ws.textMessageHandler(this::onText);
    ws.binaryMessageHandler(b -> send("", error(GatewayErrors.badSubmission("binary frames are not accepted: send one JSON submission per text frame"))));
    ws.closeHandler(v -> stopped());
    // a failure of the socket (a message over the WebSocket size limit, above all) ends it visibly:
    // left open, the session would stop answering while the client waits
    ws.exceptionHandler(err -> close(CLOSE_TOO_BIG, "message too large or malformed"));
  }

  /** The close code for a message the socket could not take (RFC 6455: message too big). */
  static final short CLOSE_TOO_BIG = 1009;

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
        send(id, error(Failures.report(LOG, "session op " + type, ar.cause())));
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
      case Ops.AGENT_QUERY -> registryOps.query(caller, op).map(msg -> send(id, msg));
      case Ops.REGISTER_AGENT -> registryOps.register(caller, op).map(msg -> send(id, msg));
      // a session following the agent's own conversation gets the LifecycleEvent from there
      case Ops.LIFECYCLE_TRANSITION -> registryOps.transition(caller, op, agentId, "session " + (sessionId == null ? "-" : sessionId))
        .map(msg -> msg.getString("agent_id").equals(conversationKey) ? null : send(id, msg));
      default -> Future.failedFuture(GatewayErrors.unknownOp(type));
    };
  }

  // ---- ops ----------------------------------------------------------------------------------------

  private Future<Void> configure(String id, JsonObject op) {
    // taken before the check: a change of access heard while configuring is checked again at once
    long mark = access.mark();
    Optional<UUID> givenSession = text(op, "session_id").map(Submissions::sessionId);
    Optional<long[]> resumeAt = text(op, "last_event_id").map(Submissions::eventId);
    return registryOps.resolve(caller, text(op, "agent_id"), op.getValue("agent_query")).compose(a -> {
      String key = text(op, "conversation_key").orElse(a);
      return records.authorize(caller, a, key).compose(v -> records.find(givenSession)).compose(stored -> {
        if (stored.isPresent() && !stored.get().principalId().equals(caller.principalId())) {
          return Future.failedFuture(GatewayErrors.sessionNotYours(givenSession.get().toString()));
        }
        boolean resume = stored.isPresent() && resumeAt.isPresent();
        Future<Void> aborted = !resume && task != null ? abort(task, "session reconfigured") : Future.succeededFuture();
        UUID sid = givenSession.orElseGet(UUID::randomUUID);
        return aborted.compose(v -> records.configure(sid, caller, a, key, resume)).compose(mine -> {
          if (!mine) {
            return Future.failedFuture(GatewayErrors.sessionNotYours(sid.toString()));
          }
          return restoreTask(resume ? stored : Optional.empty()).compose(v -> follow(sid, a, key, resumeAt, mark));
        }).compose(from -> records.lifecycle(a).map(state -> {
          // session_configured goes first; the events after the start point follow it
          send(id, EventMapping.msg("session_configured")
            .put("session_id", sid.toString()).put("agent_id", a).put("conversation_key", key).put("last_event_id", from + "")
            .put("lifecycle", state.map(LifecycleState::display).orElse(null))
            .put("task_running", task != null).put("task_id", task == null ? null : task.subId()));
          follower.begin();
          return null;
        }));
      });
    });
  }

  private Future<Void> restoreTask(Optional<ClientSessionStore.Stored> stored) {
    task = null;
    if (stored.isEmpty() || stored.get().taskRequestId().isEmpty()) {
      return Future.succeededFuture();
    }
    UUID request = stored.get().taskRequestId().get();
    return tasks.running(request).map(running -> {
      if (running) {
        task = new Task(request, stored.get().taskSubId().orElse(""));
      }
      return null;
    });
  }

  private Future<Long> follow(UUID sid, String agent, String key, Optional<long[]> resumeAt, long mark) {
    Optional<Long> after = resumeAt.map(r -> r[1] >= 0 ? r[0] - 1 : r[0]);
    if (follower != null) {
      // a reconfigure on the same conversation continues where the session was: the events of the
      // task it aborted are not lost
      if (resumeAt.isEmpty() && key.equals(conversationKey)) {
        after = Optional.of(follower.position());
      }
      follower.stop();
    }
    sessionId = sid;
    agentId = agent;
    conversationKey = key;
    access.retarget(AccessTarget.agentAndConversation(Audience.MEMBERS, agent, key), mark);
    skipSeq = resumeAt.map(r -> r[1] >= 0 ? r[0] : -1L).orElse(-1L);
    skipUpTo = resumeAt.map(r -> (int) r[1]).orElse(-1);
    SessionFollower[] self = new SessionFollower[1];
    self[0] = feeds.follow(key, e -> deliver(e, self[0]), ws::writeQueueFull, drain -> ws.drainHandler(v -> drain.run()));
    follower = self[0];
    return follower.start(after);
  }

  private Future<Void> userInput(String id, JsonObject op) {
    if (id.isEmpty() || id.length() > MAX_SUB_ID) {
      return Future.failedFuture(GatewayErrors.badSubmission("a user_input's id must be 1 to " + MAX_SUB_ID + " characters"));
    }
    String content = Submissions.userText(op);
    Future<Void> bookmark = text(op, "last_response_id").map(r -> tasks.checkBookmark(conversationKey, r)).orElse(Future.succeededFuture());
    return bookmark.compose(v -> task != null ? abort(task, "aborted by a new user_input") : Future.succeededFuture())
      .compose(v -> tasks.submit(caller, sessionId, conversationKey, id, content))
      .compose(request -> {
        subIds.put(request, id);
        if (!ended.containsKey(request)) {
          task = new Task(request, id);
        }
        return records.task(sessionId, request, id);
      });
  }

  private Future<Void> interrupt() {
    if (task == null) {
      return Future.failedFuture(GatewayErrors.noTaskRunning());
    }
    return abort(task, "interrupted");
  }

  private Future<Void> abort(Task t, String reason) {
    return tasks.abort(caller, t.requestId(), reason);
  }

  private Future<Void> approval(JsonObject op) {
    Optional<String> callId = text(op, "id");
    Optional<String> decision = text(op, "decision");
    if (callId.isEmpty() || decision.isEmpty()) {
      return Future.failedFuture(GatewayErrors.badSubmission("exec_approval needs id (the call_id of the exec_approval_request) and decision"));
    }
    return tasks.approve(caller, agentId, callId.get(), Submissions.decision(decision.get()));
  }

  // ---- events -------------------------------------------------------------------------------------

  /** Sends the session events of one ledger event, each with its {@code event_id} ({@code <seq>.<n>}). */
  private Future<Void> deliver(LedgerEvent e, SessionFollower from) {
    return subIdOf(e).compose(sub -> {
      if (from != follower) {
        // replaced while the lookup ran: its successor starts before this event
        return Future.failedFuture(new IllegalStateException("follower replaced"));
      }
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
      return Future.<Void>succeededFuture();
    });
  }

  /** The submission id of the user_input that started the event's task (remembered for the last 1,000 tasks). */
  private Future<String> subIdOf(LedgerEvent e) {
    if (e.requestId().isEmpty()) {
      return Future.succeededFuture("");
    }
    UUID request = e.requestId().get();
    String known = subIds.get(request);
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return tasks.subIdOf(request).map(sub -> {
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

  private static Optional<String> text(JsonObject op, String field) {
    return Submissions.text(op, field);
  }
}
