package dev.conclave.agent.internal.pack;

import dev.conclave.agent.Endpoint;
import dev.conclave.proto.coven.ExecuteToolResponse;
import dev.conclave.proto.coven.PackServiceGrpcClient;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Delivers tool results with the unary {@code ToolResult} call. A result goes to the endpoint whose
 * stream carried the call; a delivery that meets {@code UNAVAILABLE} or a broken connection is tried
 * once more, on the endpoint the pack is registered with by then. {@code NOT_FOUND} means the gateway
 * stopped waiting (the call timed out): the result is dropped. While {@code maxConcurrentCalls}
 * deliveries are under way it asks, through {@code flow}, to stop reading new calls, so a gateway
 * cannot pile results up in memory. Confined to the pack client's event loop.
 */
final class ResultSender {

  private static final Logger LOG = LoggerFactory.getLogger(ResultSender.class);

  /** Why one delivery attempt failed; {@code status} is null when no gRPC status came back. */
  private static final class DeliveryFailure extends RuntimeException {
    private final GrpcStatus status;
    private final boolean retryable;

    DeliveryFailure(GrpcStatus status, String message, boolean retryable) {
      super(message, null, false, false);
      this.status = status;
      this.retryable = retryable;
    }
  }

  private final Vertx vertx;
  private final PackConfig config;
  private final GrpcClient client;
  private final Supplier<Optional<Endpoint>> liveEndpoint;
  private final Consumer<Boolean> flow;
  private final List<Promise<Void>> idleWaiters = new ArrayList<>();
  private int inFlight;
  private boolean saturated;

  /**
   * @param liveEndpoint the endpoint the pack is registered with right now, if any
   * @param flow told {@code true} to stop reading new calls, {@code false} to read again
   */
  ResultSender(Vertx vertx, PackConfig config, GrpcClient client, Supplier<Optional<Endpoint>> liveEndpoint,
               Consumer<Boolean> flow) {
    this.vertx = vertx;
    this.config = config;
    this.client = client;
    this.liveEndpoint = liveEndpoint;
    this.flow = flow;
  }

  /** Whether new calls should wait until deliveries finish. */
  boolean saturated() {
    return saturated;
  }

  /** Completes once no delivery is under way. */
  Future<Void> idle() {
    if (inFlight == 0) {
      return Future.succeededFuture();
    }
    Promise<Void> p = Promise.promise();
    idleWaiters.add(p);
    return p.future();
  }

  void send(Endpoint origin, String toolName, ExecuteToolResponse result) {
    String log = "pack=" + config.packId() + " tool=" + toolName + " request=" + result.getRequestId();
    inFlight++;
    updateFlow();
    attempt(origin, result)
      .recover(err -> {
        if (err instanceof DeliveryFailure f && f.retryable) {
          Endpoint next = liveEndpoint.get().orElse(origin);
          LOG.info("retrying a tool result once {} endpoint={} error={}", log, next, f.getMessage());
          return delay(config.backoff().initial()).compose(v -> attempt(next, result));
        }
        return Future.failedFuture(err);
      })
      .onComplete(ar -> {
        if (ar.succeeded()) {
          LOG.debug("tool result delivered {}", log);
        } else if (ar.cause() instanceof DeliveryFailure f && f.status == GrpcStatus.NOT_FOUND) {
          LOG.info("the gateway no longer waits for this result (the call timed out or ended); dropped {} error={}",
            log, f.getMessage());
        } else {
          LOG.warn("tool result lost: the gateway did not take it {} error={}", log, PackWire.describe(ar.cause()));
        }
        inFlight--;
        updateFlow();
        if (inFlight == 0) {
          List<Promise<Void>> waiters = new ArrayList<>(idleWaiters);
          idleWaiters.clear();
          waiters.forEach(Promise::tryComplete);
        }
      });
  }

  private Future<Void> attempt(Endpoint endpoint, ExecuteToolResponse result) {
    return client.request(SocketAddress.inetSocketAddress(endpoint.port(), endpoint.host()), PackServiceGrpcClient.ToolResult)
      .transform(ar -> ar.failed()
        ? Future.failedFuture(new DeliveryFailure(null, "cannot connect to " + endpoint + ": " + PackWire.describe(ar.cause()), true))
        : deliver(ar.result(), result));
  }

  private Future<Void> deliver(GrpcClientRequest<ExecuteToolResponse, com.google.protobuf.Empty> req, ExecuteToolResponse result) {
    req.headers().set("authorization", config.authorization());
    req.timeout(config.resultTimeout().toMillis(), TimeUnit.MILLISECONDS);
    req.end(result);
    return req.response()
      .compose(resp -> resp.end().transform(ar -> {
        if (ar.succeeded()) {
          return Future.<Void>succeededFuture();
        }
        GrpcStatus status = resp.status();
        if (status != null && status != GrpcStatus.OK) {
          String message = PackWire.statusMessage(resp);
          return Future.<Void>failedFuture(new DeliveryFailure(status,
            status.name() + (message.isEmpty() ? "" : ": " + message), status == GrpcStatus.UNAVAILABLE));
        }
        return Future.<Void>failedFuture(ar.cause());
      }))
      .recover(err -> {
        if (err instanceof DeliveryFailure) {
          return Future.failedFuture(err);
        }
        boolean deadlinePassed = req.deadline() != null && req.deadline().succeeded();
        // a connection that broke mid-call is what gRPC calls UNAVAILABLE; a passed deadline is not
        return Future.failedFuture(new DeliveryFailure(null,
          deadlinePassed ? "no answer within " + config.resultTimeout().toMillis() + " ms" : PackWire.describe(err),
          !deadlinePassed));
      });
  }

  private Future<Void> delay(Duration d) {
    Promise<Void> p = Promise.promise();
    vertx.setTimer(Math.max(1, d.toMillis()), id -> p.complete());
    return p.future();
  }

  private void updateFlow() {
    int limit = config.maxConcurrentCalls();
    if (!saturated && inFlight >= limit) {
      saturated = true;
      LOG.info("{} tool results under way; reading no new calls until some are through pack={}", inFlight, config.packId());
      flow.accept(true);
    } else if (saturated && inFlight <= limit / 2) {
      saturated = false;
      LOG.info("tool results through; reading calls again pack={}", config.packId());
      flow.accept(false);
    }
  }
}
