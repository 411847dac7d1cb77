package dev.conclave.swarm.conversations;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.swarm.TaskConversationOps;
import dev.conclave.platform.swarm.TaskConversationOps.Open;
import dev.conclave.platform.swarm.TaskConversationOps.Opened;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.store.SqlTime;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import java.util.UUID;

/**
 * Hands a claimed task to the gateway as a conversation ({@code swarm:<taskId>}): the agent that
 * holds the task asks for it right after its CLAIM ({@code POST /api/v1/tasks/:id/conversation}).
 * The coordinator checks what only it can (the caller acts for the swarm agent, the agent holds the
 * task), writes the prompt ({@link TaskPrompt}) from the task, its dependencies' results and the
 * related learnings, and sends it to a gateway node ({@link TaskConversationOps}), which checks the
 * caller's access to the gateway agent of the same id and queues the message. The task then records
 * the conversation's key, and a {@code task conversation} event tells dashboards.
 *
 * <p>Safe to repeat: the message's idempotency key is one per claim (task, agent, claim time), so a
 * retried call answers {@code duplicate} and writes nothing; a new claim of the task (a retry, by
 * this agent or another) opens the same conversation again with a new message, and moves its binding
 * to the new agent.
 */
public final class TaskConversations {

  static final Duration GATEWAY_TIMEOUT = Duration.ofSeconds(10);
  private static final SqlFile SQL = SqlFile.of(TaskConversations.class, "conversations.sql");
  private static final Set<String> HELD = Set.of("claimed", "in_progress");

  private final Vertx vertx;
  private final Pool pool;
  private final Clock clock;
  private final Runnable onStateChange;

  /** {@code onStateChange}: run after the task recorded its conversation, so its event goes out at once. */
  public TaskConversations(Vertx vertx, Pool pool, Clock clock, Runnable onStateChange) {
    this.vertx = vertx;
    this.pool = pool;
    this.clock = clock;
    this.onStateChange = onStateChange;
  }

  /**
   * Opens the conversation of {@code taskId} for {@code agentId}, acting as {@code principal}.
   * Answers {@code {"success": true, "conversationKey", "requestId"?, "duplicate"}}.
   */
  public Future<JsonObject> open(String taskId, String agentId, UUID principal, boolean admin) {
    return SQL.get("Target").with("agent_id", agentId).with("principal", principal).with("admin", admin).with("task_id", taskId)
      .execute(pool)
      .compose(rows -> {
        Row row = rows.iterator().next();
        JsonObject agentError = row.getJsonObject("agent_error");
        if (agentError != null) {
          return Future.failedFuture(SwarmErrors.fromDatabase(agentError.getJsonObject("error")));
        }
        JsonObject task = row.getJsonObject("task");
        if (task == null) {
          return Future.failedFuture(SwarmErrors.taskNotFound(taskId));
        }
        ConclaveException notHeld = notHeld(task, agentId);
        if (notHeld != null) {
          return Future.failedFuture(notHeld);
        }
        String prompt = TaskPrompt.of(task, row.getJsonArray("dependencies"), row.getJsonArray("learnings"));
        Open open = new Open(taskId, agentId, principal, admin, prompt, idempotencyKey(taskId, agentId, task.getString("claimedAt", "")));
        return TaskConversationOps.open(vertx, open, GATEWAY_TIMEOUT).compose(opened -> record(taskId, agentId, opened));
      });
  }

  private Future<JsonObject> record(String taskId, String agentId, Opened opened) {
    return SQL.get("Record").with("conversation_key", opened.conversationKey()).with("task_id", taskId).with("agent_id", agentId)
      .with("now", SqlTime.of(clock.instant())).with("request_id", opened.requestId().orElse(null))
      .execute(pool)
      .map(rows -> {
        if (rows.rowCount() > 0) {
          onStateChange.run();
        }
        JsonObject answer = new JsonObject().put("success", true).put("conversationKey", opened.conversationKey())
          .put("duplicate", opened.duplicate());
        opened.requestId().ifPresent(id -> answer.put("requestId", id));
        return answer;
      });
  }

  /** Why the agent may not have the task's conversation: it does not hold the task (null: it does). */
  private static ConclaveException notHeld(JsonObject task, String agentId) {
    String status = task.getString("status");
    String holder = task.getString("assignedAgent");
    if (HELD.contains(status) && agentId.equals(holder)) {
      return null;
    }
    if (holder != null && !agentId.equals(holder) && (HELD.contains(status) || "needs_review".equals(status))) {
      return new ConclaveException(ErrorKind.CONFLICT, SwarmErrors.TASK_ALREADY_CLAIMED,
        "task " + task.getString("id") + " is held by another agent");
    }
    return new ConclaveException(ErrorKind.CONFLICT, SwarmErrors.INVALID_OPERATION, "task " + task.getString("id") + " is "
      + status + "; a task gets its conversation while the agent asking holds it (claimed or in progress)");
  }

  /** One per claim: a repeat of the same call writes nothing, a new claim writes a new message. */
  static String idempotencyKey(String taskId, String agentId, String claimedAt) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
        .digest((taskId + "\n" + agentId + "\n" + claimedAt).getBytes(StandardCharsets.UTF_8));
      return "swarm-task-" + HexFormat.of().formatHex(digest, 0, 20);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
