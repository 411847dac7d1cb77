package dev.conclave.gateway.api;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.control.TaskConversations;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.swarm.TaskConversationOps;
import dev.conclave.platform.swarm.TaskConversationOps.Open;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's side of {@link Addresses#GATEWAY_TASK_CONVERSATIONS}: the coordinator hands over a
 * claimed swarm task ({@link TaskConversations}). Failures are replied as data
 * ({@link TaskConversationOps#failure}), so the coordinator passes the gateway's own error on.
 */
public final class TaskConversationsEndpoint {

  private static final Logger LOG = LoggerFactory.getLogger(TaskConversationsEndpoint.class);

  private final TaskConversations conversations;

  public TaskConversationsEndpoint(TaskConversations conversations) {
    this.conversations = conversations;
  }

  public MessageConsumer<JsonObject> register(Vertx vertx) {
    return vertx.eventBus().consumer(Addresses.GATEWAY_TASK_CONVERSATIONS, this::handle);
  }

  private void handle(Message<JsonObject> msg) {
    Future<JsonObject> result;
    try {
      result = conversations.open(Open.fromJson(msg.body())).map(TaskConversationOps.Opened::toJson);
    } catch (RuntimeException e) {
      result = Future.failedFuture(ConclaveException.invalid("task_conversation_invalid", "malformed request: " + e.getMessage()));
    }
    result.onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result());
      } else {
        ConclaveException e = Failures.report(LOG, "task conversation " + msg.body().getString("taskId"), ar.cause());
        msg.reply(TaskConversationOps.failure(e));
      }
    });
  }
}
