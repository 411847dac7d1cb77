package dev.conclave.packs.builtin;

import dev.conclave.contract.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;

import java.time.Duration;

/**
 * The pack host's requests to the gateway ({@link Addresses#GATEWAY_TOOLS}, any gateway node; today
 * MCP's request trace), with failures turned into a {@link ToolFailure}.
 */
public final class GatewayCalls {

  private final Vertx vertx;

  public GatewayCalls(Vertx vertx) {
    this.vertx = vertx;
  }

  public Future<JsonObject> request(JsonObject op, Duration timeout) {
    return vertx.eventBus().<JsonObject>request(Addresses.GATEWAY_TOOLS, op, new DeliveryOptions().setSendTimeout(timeout.toMillis()))
      .map(Message::body)
      .recover(err -> Future.failedFuture(failure(err, timeout)));
  }

  private static ToolFailure failure(Throwable err, Duration timeout) {
    if (err instanceof ReplyException re) {
      if (re.failureType() == ReplyFailure.NO_HANDLERS) {
        return new ToolFailure("no gateway is running in this cluster, so this tool cannot run");
      }
      if (re.failureType() == ReplyFailure.TIMEOUT) {
        return new ToolFailure("the gateway did not answer within " + timeout.toSeconds() + " s; retry");
      }
      return new ToolFailure(re.getMessage());
    }
    return new ToolFailure("the gateway could not be reached: " + err.getMessage());
  }
}
