package dev.conclave.agent.internal.pack;

import dev.conclave.agent.ClientStoppedException;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.pack.PackListener;
import dev.conclave.agent.pack.PackRegistration;
import dev.conclave.agent.pack.PackStatusException;
import dev.conclave.agent.pack.PackSupersededException;
import dev.conclave.agent.pack.PackTool;
import dev.conclave.proto.coven.ExecuteToolRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.grpc.client.GrpcClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Keeps a pack registered: connects to the endpoints in rotation, registers the manifest,
 * reconnects with backoff when the stream ends, and stops on permanent refusals or when superseded.
 * It is a verticle so that its state lives on an event loop of its own, obtained through public
 * Vert.x API; undeploying it is how the pack client stops.
 */
public final class PackSupervisor extends VerticleBase implements RegisterCall.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(PackSupervisor.class);

  private enum State { CONNECTING, REGISTERED, BACKING_OFF, STOPPING }

  private final PackConfig config;
  private final Promise<PackRegistration> registered = Promise.promise();
  private final Promise<Void> closed = Promise.promise();
  private final Random random = new Random();
  private final String log;
  private GrpcClient client;
  private ResultSender sender;
  private ToolRunner runner;
  private State state;
  private RegisterCall call;
  private PackRegistration last;
  /** The registration right now, for readers on any thread. */
  private volatile PackRegistration current;
  private int nextEndpoint;
  private int attempt;
  private boolean everRegistered;
  private long retryTimer = -1;
  /** Why the client stops by itself; null when it was asked to. */
  private Throwable stopCause;

  public PackSupervisor(PackConfig config) {
    this.config = config;
    this.log = "pack=" + config.packId();
  }

  /** The first registration; fails when the client stops before one. */
  public Future<PackRegistration> registered() {
    return registered.future();
  }

  public Future<Void> closed() {
    return closed.future();
  }

  public Optional<PackRegistration> registration() {
    return Optional.ofNullable(current);
  }

  /**
   * Ends a client whose verticle never ran: it was closed before starting, or could not deploy.
   * Listeners hear nothing: no connection ever began.
   */
  public void abandon(Throwable cause) {
    registered.tryFail(cause != null ? cause : new ClientStoppedException("the pack client was closed before it started"));
    if (cause == null) {
      closed.tryComplete();
    } else {
      closed.tryFail(cause);
    }
  }

  @Override
  public Future<?> start() {
    client = PackTransport.client(config);
    sender = new ResultSender(vertx, config, client, this::liveEndpoint, this::onBackpressure);
    runner = new ToolRunner(vertx, context, config, sender);
    LOG.info("starting {} version={} endpoints={} tools={} maxConcurrentCalls={}", log, config.version(),
      config.endpoints(), config.tools().stream().map(PackTool::name).toList(), config.maxConcurrentCalls());
    connect();
    return Future.succeededFuture();
  }

  /** Runs on undeploy: after {@code PackClient.close()}, a permanent failure, or Vert.x closing. */
  @Override
  public Future<?> stop() {
    LOG.info("stopping {}", log);
    state = State.STOPPING;
    if (retryTimer >= 0) {
      vertx.cancelTimer(retryTimer);
      retryTimer = -1;
    }
    registered.tryFail(stopCause != null ? stopCause : new ClientStoppedException("the pack client was closed"));
    RegisterCall c = call;
    call = null;
    current = null;
    if (c != null) {
      c.cancel();
    }
    runner.close();
    return sender.idle()
      .timeout(config.closeGrace().toMillis(), TimeUnit.MILLISECONDS)
      .recover(err -> {
        LOG.warn("closing without waiting further for tool results under way {}", log);
        return Future.succeededFuture();
      })
      .eventually(() -> backOnLoop(client.close()))
      .andThen(ar -> {
        LOG.info("stopped {}{}", log, stopCause == null ? "" : " error=" + stopCause.getMessage());
        notifyListeners(l -> l.onStopped(stopCause));
        if (stopCause == null) {
          closed.tryComplete();
        } else {
          closed.tryFail(stopCause);
        }
      });
  }

  private void connect() {
    Endpoint endpoint = config.endpoints().get(nextEndpoint);
    nextEndpoint = (nextEndpoint + 1) % config.endpoints().size();
    state = State.CONNECTING;
    RegisterCall c = new RegisterCall(vertx, config, client, endpoint, this);
    call = c;
    c.paused(sender.saturated());
    LOG.info("connecting {} endpoint={} attempt={}", log, endpoint, attempt);
    c.open();
  }

  @Override
  public void onRegistered(RegisterCall c, PackRegistration registration) {
    if (call != c || state != State.CONNECTING) {
      c.cancel();
      return;
    }
    state = State.REGISTERED;
    attempt = 0;
    last = registration;
    current = registration;
    boolean reconnect = everRegistered;
    everRegistered = true;
    LOG.info("registered {} endpoint={} live={} rejected={} reconnect={}", log, c.endpoint(),
      registration.liveTools(), registration.rejectedTools(), reconnect);
    if (!registration.rejectedTools().isEmpty()) {
      LOG.warn("tools rejected: another pack or a built-in tool owns these names; agents cannot call them here {} rejected={}",
        log, registration.rejectedTools());
    }
    notifyListeners(l -> l.onRegistered(registration, reconnect));
    registered.tryComplete(registration);
  }

  @Override
  public void onRequest(RegisterCall c, ExecuteToolRequest request) {
    if (call == c) {
      runner.accept(c.endpoint(), request);
    }
  }

  @Override
  public void onEnded(RegisterCall c, Throwable cause) {
    if (call != c || state == State.STOPPING) {
      return;
    }
    call = null;
    current = null;
    boolean permanent = cause instanceof PackStatusException pse && pse.permanent();
    if (c.isRegistered()) {
      PackRegistration ended = last;
      if (cause == null) {
        LOG.info("disconnected: the gateway ended the stream {} endpoint={}", log, c.endpoint());
      } else {
        LOG.warn("disconnected {} endpoint={} error={} reconnect={}", log, c.endpoint(), cause.getMessage(), !permanent);
      }
      notifyListeners(l -> l.onDisconnected(ended, cause, !permanent));
    }
    if (cause instanceof PackSupersededException superseded) {
      LOG.warn("superseded: the same pack id registered again elsewhere; stopping {} endpoint={} message={}",
        log, c.endpoint(), superseded.statusMessage());
      notifyListeners(l -> l.onSuperseded(superseded.statusMessage()));
      terminate(cause);
    } else if (permanent) {
      LOG.error("the gateway refused the pack for good; not retrying {} endpoint={} error={}", log, c.endpoint(), cause.getMessage());
      terminate(cause);
    } else {
      if (c.isRegistered()) {
        attempt = 0;
      } else {
        LOG.warn("registration attempt failed {} endpoint={} attempt={} error={}", log, c.endpoint(), attempt,
          cause == null ? "the gateway ended the call" : cause.getMessage());
      }
      scheduleRetry(cause);
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

  /** Stops without being asked to: undeploying runs {@link #stop()}, which reports the cause. */
  private void terminate(Throwable cause) {
    stopCause = cause;
    state = State.STOPPING;
    registered.tryFail(cause);
    vertx.undeploy(deploymentID()).onFailure(err -> LOG.debug("undeploy failed {} error={}", log, err.getMessage()));
  }

  /** {@code future}, completed on this verticle's event loop: closing the client completes elsewhere. */
  private <T> Future<T> backOnLoop(Future<T> future) {
    Promise<T> promise = Promise.promise();
    future.onComplete(ar -> context.runOnContext(v -> promise.handle(ar)));
    return promise.future();
  }

  private Optional<Endpoint> liveEndpoint() {
    RegisterCall c = call;
    return state == State.REGISTERED && c != null ? Optional.of(c.endpoint()) : Optional.empty();
  }

  private void onBackpressure(boolean saturated) {
    RegisterCall c = call;
    if (c != null) {
      c.paused(saturated);
    }
  }

  private void notifyListeners(Consumer<PackListener> event) {
    for (PackListener l : config.listeners()) {
      try {
        event.accept(l);
      } catch (RuntimeException e) {
        LOG.warn("pack listener failed {}", log, e);
      }
    }
  }
}
