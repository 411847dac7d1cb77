package dev.conclave.agent.internal;

import dev.conclave.agent.AgentSdkException;
import dev.conclave.agent.ConnectionLostException;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.GatewayStatusException;
import dev.conclave.agent.GatewayUnavailableException;
import dev.conclave.agent.RegistrationRejectedException;
import dev.conclave.agent.Session;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.RegistrationError;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
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

import java.util.Optional;

/**
 * One {@code AgentStream} call to one endpoint: opens it, registers, heartbeats while registered,
 * hands every later server message to its listener and reports, once, how it ended.
 * Confined to the client's context.
 */
final class GatewayStream {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayStream.class);

  /** Receives what happens on the stream after the Welcome. */
  interface Listener {
    void onMessage(GatewayStream stream, ServerMessage message);

    /** The registered stream ended; {@code cause} is null when the gateway closed it with OK. */
    void onEnded(GatewayStream stream, Throwable cause);
  }

  private final ClientContext context;
  private final Vertx vertx;
  private final ClientConfig config;
  private final GrpcClient client;
  private final Endpoint endpoint;
  private final String logContext;
  private final Promise<Session> registered;
  private final Promise<Void> closed;
  private Listener listener;
  private GrpcClientRequest<AgentMessage, ServerMessage> request;
  private Outbound outbound;
  private Session session;
  private boolean ended;
  private boolean closing;
  private long registrationTimer = -1;
  private long heartbeatTimer = -1;
  private long closeTimer = -1;

  GatewayStream(ClientContext context, ClientConfig config, GrpcClient client, Endpoint endpoint) {
    this.context = context;
    this.vertx = context.owner();
    this.config = config;
    this.client = client;
    this.endpoint = endpoint;
    this.logContext = "agent=" + config.agentId() + " endpoint=" + endpoint;
    this.registered = context.promise();
    this.closed = context.promise();
  }

  Endpoint endpoint() {
    return endpoint;
  }

  /** The session, once the gateway welcomed the agent on this stream. */
  Optional<Session> session() {
    return Optional.ofNullable(session);
  }

  boolean isOpen() {
    return !ended;
  }

  /** Completes once the stream ended, however it ended. */
  Future<Void> closed() {
    return closed.future();
  }

  /**
   * Connects, sends {@code RegisterAgent} and completes with the session on {@code Welcome}. Fails
   * with {@link RegistrationRejectedException}, {@link GatewayStatusException} or
   * {@link GatewayUnavailableException}.
   */
  Future<Session> open(Listener listener) {
    this.listener = listener;
    long budget = config.connectTimeout().toMillis() + config.registrationTimeout().toMillis();
    registrationTimer = vertx.setTimer(budget, id -> {
      registrationTimer = -1;
      end(new GatewayUnavailableException(endpoint, "no Welcome within " + budget + " ms", null));
    });
    client.request(SocketAddress.inetSocketAddress(endpoint.port(), endpoint.host()), CovenControlGrpcClient.AgentStream)
      .onComplete(ar -> {
        if (ar.failed()) {
          end(new GatewayUnavailableException(endpoint, "cannot connect: " + describe(ar.cause()), ar.cause()));
        } else {
          begin(ar.result());
        }
      });
    return registered.future();
  }

  /** Writes a message with backpressure; see {@link Outbound#write}. */
  Future<Void> write(AgentMessage message) {
    if (outbound == null) {
      return Future.failedFuture(new ConnectionLostException("the stream to " + endpoint + " is not open", null));
    }
    return outbound.write(message);
  }

  /**
   * Half-closes the agent's side and lets the gateway end the call; resets it if the gateway has
   * not done so within the close grace.
   */
  Future<Void> close() {
    if (ended || closing) {
      return closed.future();
    }
    closing = true;
    if (request == null || outbound == null) {
      end(null);
      return closed.future();
    }
    LOG.debug("closing the stream {}", logContext);
    outbound.end();
    closeTimer = vertx.setTimer(Math.max(1, config.closeGrace().toMillis()), id -> {
      closeTimer = -1;
      end(null);
    });
    return closed.future();
  }

  /** Ends the stream at once, failing the registration if it is still pending. */
  void abort(Throwable cause) {
    end(cause);
  }

  private void begin(GrpcClientRequest<AgentMessage, ServerMessage> req) {
    if (ended) {
      req.cancel();
      return;
    }
    request = req;
    LOG.debug("stream opened {}", logContext);
    req.headers().set("authorization", "Bearer " + config.token());
    req.exceptionHandler(this::end);
    // written straight to the request: before its headers go out, the request reports a full
    // write queue, and the drain that would release a queued message only follows those headers
    req.write(Protos.register(config));
    outbound = new Outbound(req, config.maxQueuedWrites(), logContext);
    req.response().onComplete(ar -> {
      if (ar.failed()) {
        end(ar.cause());
      } else {
        onResponse(ar.result());
      }
    });
  }

  private void onResponse(GrpcClientResponse<AgentMessage, ServerMessage> response) {
    LOG.debug("response headers {} status={}", logContext, response.status());
    if (ended) {
      return;
    }
    if (response.status() != null && response.status() != GrpcStatus.OK) {
      // trailers-only answer: the gateway refused the call before any message (for example auth)
      end(GatewayStatusException.of(response.status(), StatusMessages.of(response), endpoint));
      return;
    }
    if (session == null && registrationTimer != -1) {
      // headers before the Welcome: the gateway has the stream in hand and registers agents in turn;
      // after a node is lost the turn can take a while, and keeping the agent's place beats starting
      // again at the back of another node's queue
      cancelTimer(registrationTimer);
      long budget = config.registrationQueueTimeout().toMillis();
      LOG.debug("the gateway answered the stream; waiting for its Welcome {} upToMs={}", logContext, budget);
      registrationTimer = vertx.setTimer(budget, id -> {
        registrationTimer = -1;
        end(new GatewayUnavailableException(endpoint, "no Welcome within " + budget + " ms of the gateway answering the stream", null));
      });
    }
    response.handler(this::onMessage);
    response.errorHandler(error -> end(new GatewayUnavailableException(endpoint, "stream reset (" + error + ")", null)));
    response.exceptionHandler(this::end);
    response.end().onComplete(ar -> {
      if (ar.succeeded()) {
        end(null);
      } else if (ar.cause() instanceof InvalidStatusException ise) {
        end(GatewayStatusException.of(ise.actualStatus(), StatusMessages.of(response), endpoint));
      } else {
        end(ar.cause());
      }
    });
  }

  private void onMessage(ServerMessage message) {
    LOG.debug("received {} payload={}", logContext, message.getPayloadCase());
    if (ended) {
      return;
    }
    if (session != null) {
      listener.onMessage(this, message);
      return;
    }
    switch (message.getPayloadCase()) {
      case WELCOME -> {
        cancelTimer(registrationTimer);
        registrationTimer = -1;
        session = Protos.session(endpoint, message.getWelcome());
        startHeartbeats();
        registered.complete(session);
      }
      case REGISTRATION_ERROR -> {
        RegistrationError e = message.getRegistrationError();
        end(new RegistrationRejectedException(e.getReason(),
          e.getSuggestedId().isEmpty() ? Optional.empty() : Optional.of(e.getSuggestedId()), endpoint));
      }
      default -> LOG.warn("ignoring a message sent before Welcome {} payload={}", logContext, message.getPayloadCase());
    }
  }

  private void startHeartbeats() {
    long every = config.heartbeatInterval().toMillis();
    heartbeatTimer = vertx.setPeriodic(every, every, id -> {
      AgentMessage beat = AgentMessage.newBuilder()
        .setHeartbeat(Heartbeat.newBuilder().setTimestampMs(System.currentTimeMillis())).build();
      if (!outbound.writeIfIdle(beat)) {
        LOG.debug("heartbeat skipped, the stream is busy {}", logContext);
      }
    });
  }

  private void end(Throwable cause) {
    if (ended) {
      return;
    }
    ended = true;
    LOG.debug("stream ended {} registered={} closing={} cause={}", logContext, session != null, closing, String.valueOf(cause));
    cancelTimer(registrationTimer);
    cancelTimer(heartbeatTimer);
    cancelTimer(closeTimer);
    if (outbound != null) {
      outbound.close(() -> new ConnectionLostException("the stream to gateway " + endpoint + " ended", cause));
    }
    if (request != null) {
      // resets the call unless both sides already ended it cleanly
      request.cancel();
    }
    if (session == null) {
      registered.tryFail(beforeWelcome(cause));
    } else {
      listener.onEnded(this, cause);
    }
    closed.tryComplete();
  }

  private Throwable beforeWelcome(Throwable cause) {
    if (cause == null) {
      return new GatewayUnavailableException(endpoint, "the gateway ended the stream before Welcome", null);
    }
    if (cause instanceof AgentSdkException) {
      return cause;
    }
    if (cause instanceof GrpcErrorException gee) {
      return new GatewayUnavailableException(endpoint, "stream reset (" + gee.status() + ")", cause);
    }
    return new GatewayUnavailableException(endpoint, describe(cause), cause);
  }

  private void cancelTimer(long id) {
    if (id >= 0) {
      vertx.cancelTimer(id);
    }
  }

  static String describe(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }

  @Override
  public String toString() {
    return "GatewayStream[" + logContext + "]";
  }
}
