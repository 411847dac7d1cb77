package dev.conclave.platform.swarm;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * How the coordinator hands a claimed swarm task to the gateway ({@link Addresses#GATEWAY_TASK_CONVERSATIONS},
 * any gateway node): the one definition of the message, its reply and its failures, used by the
 * coordinator (sender) and the gateway (handler). The task becomes a message to the claiming agent
 * in the conversation {@code swarm:<taskId>}, so it is queued, dispatched, recorded and followed like
 * any other conversation; the gateway binds that key to the agent and writes the message as the
 * principal that acts for the swarm agent, whose access to the gateway agent it checks first.
 */
public final class TaskConversationOps {

  /** The frontend of every task's conversation key: {@code swarm:<taskId>}. */
  public static final String FRONTEND = "swarm";
  /** Who the task's message is shown as coming from. */
  public static final String SENDER = "swarm";

  private TaskConversationOps() {
  }

  /** The conversation key of a task. */
  public static String conversationKey(String taskId) {
    return FRONTEND + ":" + taskId;
  }

  /**
   * Open (or reopen, for a new claim) a task's conversation with its prompt.
   *
   * @param principalId the principal acting for the swarm agent (its registrant, or an admin)
   * @param admin whether that principal is an admin (admins may act on any agent)
   * @param idempotencyKey the message's idempotency key (1 to 100 characters): one per claim
   */
  public record Open(String taskId, String agentId, UUID principalId, boolean admin, String content, String idempotencyKey) {

    public JsonObject toJson() {
      return new JsonObject().put("taskId", taskId).put("agentId", agentId).put("principalId", principalId.toString())
        .put("admin", admin).put("content", content).put("idempotencyKey", idempotencyKey);
    }

    public static Open fromJson(JsonObject json) {
      return new Open(json.getString("taskId", ""), json.getString("agentId", ""), UUID.fromString(json.getString("principalId")),
        json.getBoolean("admin", false), json.getString("content", ""), json.getString("idempotencyKey", ""));
    }
  }

  /**
   * The gateway took the message: {@code requestId} is the request the agent receives (empty for a
   * repeat of the same idempotency key, which wrote nothing).
   */
  public record Opened(String conversationKey, Optional<String> requestId, boolean duplicate) {

    public JsonObject toJson() {
      JsonObject json = new JsonObject().put("conversationKey", conversationKey).put("duplicate", duplicate);
      requestId.ifPresent(id -> json.put("requestId", id));
      return json;
    }

    public static Opened fromJson(JsonObject json) {
      return new Opened(json.getString("conversationKey"), Optional.ofNullable(json.getString("requestId")),
        json.getBoolean("duplicate", false));
    }
  }

  /** A failure as the handler replies it: {@code {"error": {"kind", "code", "detail"}}}. */
  public static JsonObject failure(ConclaveException e) {
    return new JsonObject().put("error", new JsonObject().put("kind", e.kind().name()).put("code", e.code()).put("detail", e.detail()));
  }

  /**
   * Sends {@code open} to a gateway node. Fails with the gateway's own {@link ConclaveException}
   * (no access to the agent, an unknown agent, ...), or {@code gateway_unavailable} (503) when no
   * gateway node runs in the cluster or none answered within {@code timeout}.
   */
  public static Future<Opened> open(Vertx vertx, Open open, Duration timeout) {
    return vertx.eventBus().<JsonObject>request(Addresses.GATEWAY_TASK_CONVERSATIONS, open.toJson(),
        new DeliveryOptions().setSendTimeout(timeout.toMillis()))
      .map(Message::body)
      .recover(err -> Future.failedFuture(unavailable(err, timeout)))
      .compose(body -> {
        JsonObject error = body.getJsonObject("error");
        if (error != null) {
          ErrorKind kind;
          try {
            kind = ErrorKind.valueOf(error.getString("kind", "INTERNAL"));
          } catch (IllegalArgumentException e) {
            kind = ErrorKind.INTERNAL;
          }
          return Future.failedFuture(new ConclaveException(kind, error.getString("code", "internal"), error.getString("detail", "")));
        }
        return Future.succeededFuture(Opened.fromJson(body));
      });
  }

  private static ConclaveException unavailable(Throwable err, Duration timeout) {
    String why;
    if (err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
      why = "no gateway node runs in this cluster, so the task cannot become a conversation";
    } else if (err instanceof ReplyException re && re.failureType() == ReplyFailure.TIMEOUT) {
      why = "no gateway node answered within " + timeout.toSeconds() + " s; retry";
    } else {
      why = "the gateway could not be reached: " + err.getMessage();
    }
    return new ConclaveException(ErrorKind.UNAVAILABLE, "gateway_unavailable", why);
  }
}
