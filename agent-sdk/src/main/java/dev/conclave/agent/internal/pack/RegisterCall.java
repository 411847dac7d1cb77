package dev.conclave.agent.internal.pack;

import dev.conclave.agent.AgentSdkException;
import dev.conclave.agent.ClientStoppedException;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.GatewayUnavailableException;
import dev.conclave.agent.pack.PackRegistration;
import dev.conclave.agent.pack.PackStatusException;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackServiceGrpcClient;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.client.InvalidStatusException;
import io.vertx.grpc.common.GrpcErrorException;
import io.vertx.grpc.common.GrpcStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code PackService/Register} call to one endpoint: sends the manifest, reads the welcome
 * header, hands every {@code ExecuteToolRequest} to its listener and reports, once, how it ended.
 * Confined to the pack client's event loop.
 */
final class RegisterCall {

  private static final Logger LOG = LoggerFactory.getLogger(RegisterCall.class);

  /** What happens on the call. */
  interface Listener {
    void onRegistered(RegisterCall call, PackRegistration registration);

    void onRequest(RegisterCall call, ExecuteToolRequest request);

    /** The call ended, registered or not; {@code cause} is null when the gateway ended it with OK. */
    void onEnded(RegisterCall call, Throwable cause);
  }

  private final Vertx vertx;
  private final PackConfig config;
  private final GrpcClient client;
  private final Endpoint endpoint;
  private final Listener listener;
  private final String log;
  private GrpcClientRequest<PackManifest, ExecuteToolRequest> request;
  private GrpcClientResponse<PackManifest, ExecuteToolRequest> response;
  private boolean registered;
  private boolean ended;
  private boolean paused;
  private long timer = -1;

  RegisterCall(Vertx vertx, PackConfig config, GrpcClient client, Endpoint endpoint, Listener listener) {
    this.vertx = vertx;
    this.config = config;
    this.client = client;
    this.endpoint = endpoint;
    this.listener = listener;
    this.log = "pack=" + config.packId() + " endpoint=" + endpoint;
  }

  Endpoint endpoint() {
    return endpoint;
  }

  boolean isRegistered() {
    return registered;
  }

  /** Connects and sends the manifest; the listener hears the rest. */
  void open() {
    long budget = config.connectTimeout().toMillis() + config.registrationTimeout().toMillis();
    timer = vertx.setTimer(budget, id -> {
      timer = -1;
      end(new GatewayUnavailableException(endpoint, "no answer to the pack registration within " + budget + " ms", null));
    });
    client.request(SocketAddress.inetSocketAddress(endpoint.port(), endpoint.host()), PackServiceGrpcClient.Register)
      .onComplete(ar -> {
        if (ar.failed()) {
          end(new GatewayUnavailableException(endpoint, "cannot connect: " + PackWire.describe(ar.cause()), ar.cause()));
        } else {
          begin(ar.result());
        }
      });
  }

  /** Stops or resumes reading calls: HTTP/2 flow control then holds the gateway back. */
  void paused(boolean paused) {
    if (this.paused == paused) {
      return;
    }
    this.paused = paused;
    if (response != null && !ended) {
      if (paused) {
        response.pause();
      } else {
        response.resume();
      }
    }
  }

  /** Ends the call from the pack's side (a reset), as {@code PackClient.close()} does. */
  void cancel() {
    end(new ClientStoppedException("the pack client was closed"));
  }

  private void begin(GrpcClientRequest<PackManifest, ExecuteToolRequest> req) {
    if (ended) {
      req.cancel();
      return;
    }
    request = req;
    req.headers().set("authorization", config.authorization());
    req.exceptionHandler(this::end);
    req.response().onComplete(ar -> {
      if (ar.failed()) {
        end(ar.cause());
      } else {
        onResponse(ar.result());
      }
    });
    req.end(PackWire.manifest(config));
    LOG.debug("manifest sent {} tools={}", log, config.tools().size());
  }

  private void onResponse(GrpcClientResponse<PackManifest, ExecuteToolRequest> resp) {
    if (ended) {
      return;
    }
    response = resp;
    GrpcStatus status = resp.status();
    if (status != null) {
      // a trailers-only answer: the gateway decided before registering (auth, a bad manifest, …)
      end(status == GrpcStatus.OK ? null : PackStatusException.of(status, PackWire.statusMessage(resp), endpoint));
      return;
    }
    cancelTimer();
    registered = true;
    PackRegistration registration = PackWire.registration(config, endpoint, resp.headers().get(PackWire.WELCOME_HEADER), log);
    // the handlers go on before anything else runs: a message arriving without one is lost
    resp.handler(this::onRequest);
    resp.errorHandler(error -> end(new GatewayUnavailableException(endpoint, "stream reset (" + error + ")", null)));
    resp.exceptionHandler(this::end);
    resp.end().onComplete(ar -> {
      if (ar.succeeded()) {
        end(null);
      } else if (ar.cause() instanceof InvalidStatusException ise) {
        end(PackStatusException.of(ise.actualStatus(), PackWire.statusMessage(resp), endpoint));
      } else {
        end(ar.cause());
      }
    });
    if (paused) {
      resp.pause();
    }
    listener.onRegistered(this, registration);
  }

  private void onRequest(ExecuteToolRequest request) {
    if (!ended) {
      listener.onRequest(this, request);
    }
  }

  private void end(Throwable cause) {
    if (ended) {
      return;
    }
    ended = true;
    cancelTimer();
    Throwable reported = cause == null || cause instanceof AgentSdkException ? cause
      : cause instanceof GrpcErrorException gee
        ? new GatewayUnavailableException(endpoint, "stream reset (" + gee.status() + ")", cause)
        : new GatewayUnavailableException(endpoint, PackWire.describe(cause), cause);
    LOG.debug("register call ended {} registered={} cause={}", log, registered, String.valueOf(reported));
    if (request != null) {
      // resets the call unless both sides already ended it cleanly
      request.cancel();
    }
    listener.onEnded(this, reported);
  }

  private void cancelTimer() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  @Override
  public String toString() {
    return "RegisterCall[" + log + "]";
  }
}
