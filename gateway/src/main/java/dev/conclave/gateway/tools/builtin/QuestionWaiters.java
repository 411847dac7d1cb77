package dev.conclave.gateway.tools.builtin;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.packs.GatewayToolOps;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ask_user calls waiting on this gateway node, by question id. Answers are announced cluster-wide on
 * {@link Addresses#QUESTION_ANSWERED} after the gateway committed them; the node whose waiter it is
 * completes the call, every other node ignores the announcement.
 */
public final class QuestionWaiters {

  private record Waiter(String agentId, Promise<GatewayToolOps.Answer> answer) {
  }

  private final Map<String, Waiter> waiting = new ConcurrentHashMap<>();

  public MessageConsumer<JsonObject> listen(Vertx vertx) {
    return vertx.eventBus().consumer(Addresses.QUESTION_ANSWERED, msg -> {
      GatewayToolOps.Answer answer = GatewayToolOps.Answer.fromJson(msg.body());
      Waiter w = waiting.get(answer.questionId());
      if (w != null && w.agentId().equals(answer.agentId())) {
        waiting.remove(answer.questionId(), w);
        w.answer().tryComplete(answer);
      }
    });
  }

  /** Waits for the answer to {@code questionId}; the future never completes if none comes (callers time out). */
  Future<GatewayToolOps.Answer> await(String questionId, String agentId) {
    Promise<GatewayToolOps.Answer> answer = Promise.promise();
    waiting.put(questionId, new Waiter(agentId, answer));
    return answer.future();
  }

  /** Stops waiting; the answer, if one arrives later, is ignored. */
  void forget(String questionId) {
    waiting.remove(questionId);
  }
}
