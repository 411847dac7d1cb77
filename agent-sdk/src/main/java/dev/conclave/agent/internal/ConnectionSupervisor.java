package dev.conclave.agent.internal;

import dev.conclave.agent.ClientStoppedException;
import dev.conclave.agent.ConnectionListener;
import dev.conclave.agent.Disconnect;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.GatewayStatusException;
import dev.conclave.agent.GatewayStatusException.AgentAlreadyConnectedException;
import dev.conclave.agent.NotConnectedException;
import dev.conclave.agent.PackToolResult;
import dev.conclave.agent.RegistrationRejectedException;
import dev.conclave.agent.Session;
import dev.conclave.agent.ShutdownPolicy;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.grpc.client.GrpcClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;

/**
 * Keeps the agent connected: connects to the endpoints in rotation, registers, reconnects with
 * backoff when a session ends, stops on permanent rejections, honours Shutdown, and routes server
 * messages. All state lives on one Vert.x event-loop context created for the client.
 */
public final class ConnectionSupervisor implements GatewayStream.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionSupervisor.class);
  /** Head start the gateway's own tool timeout gets, so its timeout report arrives before ours. */
  private static final Duration TOOL_TIMEOUT_MARGIN = Duration.ofSeconds(5);

  private enum State { NEW, CONNECTING, REGISTERED, DRAINING, BACKING_OFF, STOPPING, STOPPED }

  private final ClientConfig config;
  private final ClientContext context;
  private final Vertx vertx;
  private final GrpcClient client;
  private final RequestRunner runner;
  private final PackToolCalls packTools;
  private final Promise<Session> started;
  private final Promise<Void> stopped;
  private final Random random = new Random();
  private final String log;
  private State state = State.NEW;
  private GatewayStream stream;
  private Session lastSession;
  /** The registered session right now, for readers on any thread. */
  private volatile Session current;
  private int nextEndpoint;
  private int attempt;
  private int alreadyExistsInARow;
  private boolean everRegistered;
  private String shutdownReason;
  private long retryTimer = -1;

  public ConnectionSupervisor(ClientConfig config) {
    this.config = config;
    this.vertx = config.vertx();
    this.context = ClientContext.create(vertx);
    this.client = Transport.client(config);
    this.runner = new RequestRunner(context, config);
    this.packTools = new PackToolCalls(context, config.agentId());
    this.started = context.promise();
    this.stopped = context.promise();
    this.log = "agent=" + config.agentId();
  }

  public Future<Session> start() {
    OnContext.run(context, () -> {
      if (state == State.NEW) {
        LOG.info("starting {} endpoints={} features={}", log, config.endpoints(), config.features());
        connect();
      }
    });
    return started.future();
  }

  public Future<Void> stopped() {
    return stopped.future();
  }

  public Optional<Session> session() {
    return Optional.ofNullable(current);
  }

  public Future<PackToolResult> executePackTool(String toolName, String inputJson, Duration timeout) {
    return OnContext.call(context, () -> {
      GatewayStream s = stream;
      if ((state != State.REGISTERED && state != State.DRAINING) || s == null || s.session().isEmpty()) {
        return Future.failedFuture(new NotConnectedException("cannot run pack tool " + toolName
          + ": the agent is not registered with a gateway right now (state " + state.name().toLowerCase() + ")"));
      }
      Duration t = timeout != null ? timeout : s.session().get().tool(toolName)
        .map(info -> info.timeout())
        .filter(d -> !d.isZero())
        .map(d -> d.plus(TOOL_TIMEOUT_MARGIN))
        .orElse(config.packToolTimeout());
      return packTools.call(s, toolName, inputJson, t);
    });
  }

  public Future<Void> stop() {
    OnContext.run(context, this::beginStop);
    return stopped.future().recover(err -> Future.succeededFuture());
  }

  // ---- connection lifecycle ------------------------------------------------------------------

  private void connect() {
    Endpoint endpoint = config.endpoints().get(nextEndpoint);
    nextEndpoint = (nextEndpoint + 1) % config.endpoints().size();
    state = State.CONNECTING;
    GatewayStream s = new GatewayStream(context, config, client, endpoint);
    stream = s;
    LOG.info("connecting {} endpoint={} attempt={}", log, endpoint, attempt);
    s.open(this).onComplete(ar -> {
      if (ar.succeeded()) {
        onRegistered(s, ar.result());
      } else {
        onConnectFailed(s, ar.cause());
      }
    });
  }

  private void onRegistered(GatewayStream s, Session session) {
    if (state != State.CONNECTING || stream != s) {
      s.close();
      return;
    }
    state = State.REGISTERED;
    attempt = 0;
    alreadyExistsInARow = 0;
    shutdownReason = null;
    lastSession = session;
    current = session;
    boolean reconnect = everRegistered;
    everRegistered = true;
    LOG.info("registered {} endpoint={} server={} instance={} tools={} reconnect={}", log, session.endpoint(),
      session.serverId(), session.instanceId(), session.availableTools().size(), reconnect);
    notifyListeners(l -> l.onRegistered(session, reconnect));
    started.tryComplete(session);
  }

  private void onConnectFailed(GatewayStream s, Throwable cause) {
    if (stream == s) {
      stream = null;
    }
    if (state != State.CONNECTING) {
      return;
    }
    if (isPermanent(cause)) {
      LOG.error("registration refused for good, not retrying {} endpoint={} error={}", log, s.endpoint(), cause.getMessage());
      terminate(cause);
    } else {
      LOG.warn("connection attempt failed {} endpoint={} attempt={} error={}", log, s.endpoint(), attempt, cause.getMessage());
      scheduleRetry(cause);
    }
  }

  private boolean isPermanent(Throwable cause) {
    if (cause instanceof RegistrationRejectedException) {
      return true;
    }
    if (cause instanceof AgentAlreadyConnectedException) {
      return ++alreadyExistsInARow > config.alreadyExistsRetries();
    }
    return cause instanceof GatewayStatusException gse && gse.permanent();
  }

  @Override
  public void onEnded(GatewayStream s, Throwable cause) {
    String reason = cause == null ? "the gateway closed the stream" : GatewayStream.describe(cause);
    runner.streamEnded(s, reason);
    packTools.streamEnded(s, cause);
    if (stream != s) {
      return;
    }
    stream = null;
    current = null;
    if (state == State.STOPPING || state == State.STOPPED) {
      return;
    }
    boolean reconnect = shutdownReason == null || config.shutdownPolicy() == ShutdownPolicy.RECONNECT;
    Disconnect disconnect = new Disconnect(lastSession, Optional.ofNullable(cause), Optional.ofNullable(shutdownReason), reconnect);
    if (cause == null) {
      LOG.info("disconnected {} endpoint={} shutdown={} reconnect={}", log, s.endpoint(), shutdownReason, reconnect);
    } else {
      LOG.warn("disconnected {} endpoint={} error={} reconnect={}", log, s.endpoint(), reason, reconnect);
    }
    notifyListeners(l -> l.onDisconnected(disconnect));
    if (reconnect) {
      attempt = 0;
      scheduleRetry(cause);
    } else {
      terminate(null);
    }
  }

  private void scheduleRetry(Throwable cause) {
    Endpoint next = config.endpoints().get(nextEndpoint);
    int n = attempt++;
    Duration delay = config.backoff().delay(n, random.nextDouble());
    state = State.BACKING_OFF;
    LOG.info("reconnecting {} endpoint={} inMs={} attempt={}", log, next, delay.toMillis(), n);
    notifyListeners(l -> l.onRetryScheduled(next, delay, n, cause));
    retryTimer = vertx.setTimer(Math.max(1, delay.toMillis()), id -> {
      retryTimer = -1;
      if (state == State.BACKING_OFF) {
        connect();
      }
    });
  }

  // ---- server messages -----------------------------------------------------------------------

  @Override
  public void onMessage(GatewayStream s, ServerMessage message) {
    switch (message.getPayloadCase()) {
      case SEND_MESSAGE -> runner.onSendMessage(s, message.getSendMessage());
      case CANCEL_REQUEST -> runner.onCancel(s, message.getCancelRequest());
      case TOOL_APPROVAL -> runner.onApproval(s, message.getToolApproval());
      case INJECT_CONTEXT -> Injections.answer(context, config, s, message.getInjectContext());
      case PACK_TOOL_RESULT -> packTools.onResult(message.getPackToolResult());
      case SHUTDOWN -> onShutdown(s, message.getShutdown().getReason());
      default -> LOG.warn("ignoring unexpected message {} payload={}", log, message.getPayloadCase());
    }
  }

  private void onShutdown(GatewayStream s, String reason) {
    if (state != State.REGISTERED || stream != s) {
      return;
    }
    state = State.DRAINING;
    shutdownReason = reason == null || reason.isEmpty() ? "shutdown" : reason;
    LOG.info("gateway asked the agent to leave; finishing current work {} endpoint={} reason={}", log, s.endpoint(), shutdownReason);
    try {
      config.handler().onShutdown(shutdownReason);
    } catch (RuntimeException e) {
      LOG.warn("shutdown hook failed {}", log, e);
    }
    runner.whenIdle().onComplete(v -> {
      if (stream == s) {
        s.close();
      }
    });
  }

  // ---- stopping ------------------------------------------------------------------------------

  private void beginStop() {
    if (state == State.STOPPING || state == State.STOPPED) {
      return;
    }
    LOG.info("stopping {}", log);
    state = State.STOPPING;
    if (retryTimer >= 0) {
      vertx.cancelTimer(retryTimer);
      retryTimer = -1;
    }
    ClientStoppedException stoppedEx = new ClientStoppedException("the agent client was stopped");
    started.tryFail(stoppedEx);
    GatewayStream s = stream;
    Future<Void> idle = OnContext.on(context, runner.cancelAll("agent stopping")
      .timeout(Math.max(1, config.closeGrace().toMillis()), java.util.concurrent.TimeUnit.MILLISECONDS))
      .recover(err -> {
        LOG.warn("stopping without waiting further for the handler {} error={}", log, err.getMessage());
        return Future.succeededFuture();
      });
    idle
      .compose(v -> {
        if (s == null) {
          return Future.succeededFuture();
        }
        if (s.session().isPresent()) {
          return s.close();
        }
        s.abort(stoppedEx);
        return s.closed();
      })
      .eventually(() -> {
        packTools.failAll(() -> new ClientStoppedException("the agent client was stopped before the pack tool answered"));
        return finish(null);
      });
  }

  /** Stops without being asked to: a permanent rejection, or Shutdown under policy STOP. */
  private void terminate(Throwable cause) {
    state = State.STOPPING;
    started.tryFail(cause != null ? cause : new ClientStoppedException("the agent client stopped"));
    packTools.failAll(() -> new ClientStoppedException("the agent client stopped"));
    runner.cancelAll("agent stopping");
    finish(cause);
  }

  private Future<Void> finish(Throwable cause) {
    return OnContext.callback(context, () -> config.handler().close())
      .recover(err -> {
        LOG.warn("handler close failed {}", log, err);
        return Future.succeededFuture();
      })
      .compose(v -> OnContext.on(context, client.close()))
      .eventually(() -> {
        state = State.STOPPED;
        current = null;
        LOG.info("stopped {}{}", log, cause == null ? "" : " error=" + cause.getMessage());
        notifyListeners(l -> l.onStopped(cause));
        if (cause == null) {
          stopped.tryComplete();
        } else {
          stopped.tryFail(cause);
        }
        return Future.succeededFuture();
      });
  }

  private void notifyListeners(Consumer<ConnectionListener> event) {
    for (ConnectionListener l : config.listeners()) {
      try {
        event.accept(l);
      } catch (RuntimeException e) {
        LOG.warn("connection listener failed {}", log, e);
      }
    }
  }
}
