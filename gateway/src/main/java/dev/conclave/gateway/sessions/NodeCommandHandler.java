package dev.conclave.gateway.sessions;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.routing.CommandFailures;
import dev.conclave.gateway.routing.NodeCommand;
import dev.conclave.platform.errors.Failures;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Receives the commands other nodes (and this one) send to the agent sessions held here. */
public final class NodeCommandHandler {

  private static final Logger LOG = LoggerFactory.getLogger(NodeCommandHandler.class);

  private static final JsonObject OK = new JsonObject().put("ok", true);

  private final LocalSessions sessions;

  public NodeCommandHandler(LocalSessions sessions) {
    this.sessions = sessions;
  }

  public Future<MessageConsumer<JsonObject>> register(Vertx vertx, String nodeId) {
    MessageConsumer<JsonObject> consumer = vertx.eventBus().consumer(Addresses.gatewayNode(nodeId), this::handle);
    return consumer.completion().map(consumer);
  }

  private void handle(Message<JsonObject> message) {
    JsonObject command = message.body();
    String agentId = command.getString("agentId", "");
    var session = sessions.get(agentId);
    if (session.isEmpty()) {
      String op = command.getString("op", "");
      if (op.equals(NodeCommand.WAKE) || op.equals(NodeCommand.SUPERSEDE)) {
        message.reply(OK);
      } else {
        CommandFailures.reply(message, GatewayErrors.agentNotConnected(agentId));
      }
      return;
    }
    session.get().command(command).onComplete(ar -> {
      if (ar.succeeded()) {
        message.reply(ar.result());
      } else {
        CommandFailures.reply(message, Failures.report(LOG, "node command " + command.getString("op", "") + " agent=" + agentId, ar.cause()));
      }
    });
  }
}
