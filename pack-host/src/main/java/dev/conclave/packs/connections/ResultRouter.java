package dev.conclave.packs.connections;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.contract.Addresses;
import dev.conclave.packs.PackErrors;
import dev.conclave.packs.registry.PackRecord;
import dev.conclave.packs.registry.ToolRegistry;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.metrics.MetricNames;
import dev.conclave.platform.packs.PackNodeOps;
import dev.conclave.proto.coven.ExecuteToolResponse;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Takes a pack's {@code ToolResult} to the call waiting for it: on this node when the pack's stream
 * is here, else on the node that holds it (a pack may send results over another connection). Only
 * the principal whose stream got the call can answer it. A result nobody waits for is dropped,
 * counted, and answered NOT_FOUND so the pack knows.
 */
public final class ResultRouter {

  private static final Logger LOG = LoggerFactory.getLogger(ResultRouter.class);
  static final long FORWARD_TIMEOUT_MS = 5_000;

  private final Vertx vertx;
  private final String nodeId;
  private final LocalPacks local;
  private final ToolRegistry registry;
  private final MeterRegistry metrics;

  public ResultRouter(Vertx vertx, String nodeId, LocalPacks local, ToolRegistry registry, MeterRegistry metrics) {
    this.vertx = vertx;
    this.nodeId = nodeId;
    this.local = local;
    this.registry = registry;
    this.metrics = metrics;
  }

  public Future<Void> deliver(Caller caller, ExecuteToolResponse response) {
    if (response.getRequestId().isEmpty()) {
      return Future.failedFuture(PackErrors.requestIdMissing());
    }
    String principal = caller.principalId().toString();
    return deliverHere(principal, response).compose(here -> {
      if (here == PackConnection.Delivery.ACCEPTED) {
        return Future.succeededFuture(here);
      }
      return registry.packs(Optional.of(principal)).compose(packs -> forward(principal, response, packs.stream()
        .map(PackRecord::node).filter(n -> !n.equals(nodeId)).distinct().toList(), here));
    }).compose(delivery -> {
      if (delivery == PackConnection.Delivery.ACCEPTED) {
        return Future.succeededFuture();
      }
      boolean late = delivery == PackConnection.Delivery.LATE;
      metrics.counter(MetricNames.PACKS_RESULTS_DROPPED, "reason", late ? "late" : "unknown").increment();
      LOG.info("pack result dropped principal={} request={} reason={}", principal, response.getRequestId(), late ? "late" : "unknown");
      return Future.failedFuture(PackErrors.resultNotExpected(response.getRequestId(), late));
    });
  }

  /** The op a node runs for a result forwarded to it. */
  public Future<JsonObject> deliverForwarded(JsonObject op) {
    try {
      ExecuteToolResponse response = ExecuteToolResponse.parseFrom(Base64.getDecoder().decode(op.getString("response", "")));
      return deliverHere(op.getString("principalId", ""), response).map(d -> new JsonObject().put("delivery", d.name()));
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      return Future.failedFuture(e);
    }
  }

  private Future<PackConnection.Delivery> deliverHere(String principal, ExecuteToolResponse response) {
    List<PackConnection> mine = local.ofPrincipal(principal);
    Future<PackConnection.Delivery> result = Future.succeededFuture(PackConnection.Delivery.UNKNOWN);
    for (PackConnection c : mine) {
      result = result.compose(sofar -> sofar == PackConnection.Delivery.ACCEPTED ? Future.succeededFuture(sofar)
        : c.complete(response).map(d -> better(sofar, d)));
    }
    return result;
  }

  private Future<PackConnection.Delivery> forward(String principal, ExecuteToolResponse response, List<String> nodes,
                                                  PackConnection.Delivery sofar) {
    Future<PackConnection.Delivery> result = Future.succeededFuture(sofar);
    JsonObject op = PackNodeOps.toolResult(principal, Base64.getEncoder().encodeToString(response.toByteArray()));
    for (String node : nodes) {
      result = result.compose(best -> best == PackConnection.Delivery.ACCEPTED ? Future.succeededFuture(best)
        : vertx.eventBus().<JsonObject>request(Addresses.packHostNode(node), op, new DeliveryOptions().setSendTimeout(FORWARD_TIMEOUT_MS))
          .map(reply -> better(best, PackConnection.Delivery.valueOf(reply.body().getString("delivery"))))
          .otherwise(best));
    }
    return result;
  }

  private static PackConnection.Delivery better(PackConnection.Delivery a, PackConnection.Delivery b) {
    return a.ordinal() <= b.ordinal() ? a : b;
  }
}
