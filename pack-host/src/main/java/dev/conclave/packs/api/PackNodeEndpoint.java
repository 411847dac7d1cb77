package dev.conclave.packs.api;

import dev.conclave.contract.Addresses;
import dev.conclave.packs.PackErrors;
import dev.conclave.packs.connections.LocalPacks;
import dev.conclave.packs.connections.ResultRouter;
import dev.conclave.packs.dispatch.ToolDispatcher;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.packs.PackNodeOps;
import dev.conclave.platform.packs.ToolCall;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's address on the event bus ({@link Addresses#packHostNode}): tool calls to run here,
 * pack results forwarded from other nodes, and orders to close a superseded pack stream.
 */
public final class PackNodeEndpoint {

  private static final Logger LOG = LoggerFactory.getLogger(PackNodeEndpoint.class);

  private final String nodeId;
  private final ToolDispatcher dispatcher;
  private final ResultRouter results;
  private final LocalPacks local;

  public PackNodeEndpoint(String nodeId, ToolDispatcher dispatcher, ResultRouter results, LocalPacks local) {
    this.nodeId = nodeId;
    this.dispatcher = dispatcher;
    this.results = results;
    this.local = local;
  }

  public MessageConsumer<JsonObject> register(Vertx vertx) {
    return vertx.eventBus().consumer(Addresses.packHostNode(nodeId), this::handle);
  }

  private void handle(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    Future<JsonObject> result;
    try {
      result = switch (body.getString(PackNodeOps.OP, "")) {
        case PackNodeOps.EXECUTE -> dispatcher.execute(ToolCall.fromJson(body.getJsonObject("call")),
          PackNodeOps.traceContext(body)).map(o -> o.toJson());
        case PackNodeOps.TOOL_RESULT -> results.deliverForwarded(body);
        case PackNodeOps.SUPERSEDE -> {
          String packId = body.getString("packId", "");
          local.get(body.getString("connection", "")).ifPresent(c -> c.close("superseded", PackErrors.superseded(packId)));
          yield Future.succeededFuture(new JsonObject().put("ok", true));
        }
        default -> Future.failedFuture(ConclaveException.invalid("op_unknown", "unknown pack node op '" + body.getString(PackNodeOps.OP) + "'"));
      };
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result());
      } else {
        ConclaveException e = Failures.report(LOG, "pack node op " + body.getString(PackNodeOps.OP), ar.cause());
        msg.fail(e.kind().httpStatus(), e.detail());
      }
    });
  }
}
