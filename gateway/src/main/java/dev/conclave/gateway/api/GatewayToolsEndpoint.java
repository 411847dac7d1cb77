package dev.conclave.gateway.api;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.control.RequestTraces;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.packs.GatewayToolOps;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * The gateway's side of {@link Addresses#GATEWAY_TOOLS}: what the pack host's MCP endpoint needs
 * from the gateway (the trace of an agent's request in flight). The gateway's own tools do not come
 * here: they run in the gateway (gateway.tools).
 */
public final class GatewayToolsEndpoint {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayToolsEndpoint.class);

  private final RequestTraces traces;

  public GatewayToolsEndpoint(RequestTraces traces) {
    this.traces = traces;
  }

  public MessageConsumer<JsonObject> register(Vertx vertx) {
    return vertx.eventBus().consumer(Addresses.GATEWAY_TOOLS, this::handle);
  }

  private void handle(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    Future<JsonObject> result;
    try {
      result = switch (body.getString(GatewayToolOps.OP, "")) {
        case GatewayToolOps.REQUEST_TRACE -> traces.ofAgent(body.getString("agentId", ""));
        default -> Future.failedFuture(ConclaveException.invalid("op_unknown", "unknown gateway tool op '" + body.getString(GatewayToolOps.OP) + "'"));
      };
    } catch (RuntimeException e) {
      result = Future.failedFuture(e);
    }
    result.onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result());
      } else {
        ConclaveException e = Failures.report(LOG, "gateway tool op " + body.getString(GatewayToolOps.OP), ar.cause());
        msg.fail(e.kind().httpStatus(), e.detail());
      }
    });
  }
}
