package dev.conclave.platform.bridge;

import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.admission.ConnectionGuard;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Bearer;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.errors.Failures;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.bridge.BridgeEventType;
import io.vertx.ext.bridge.PermittedOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.sockjs.BridgeEvent;
import io.vertx.ext.web.handler.sockjs.SockJSBridgeOptions;
import io.vertx.ext.web.handler.sockjs.SockJSHandler;
import io.vertx.ext.web.handler.sockjs.SockJSHandlerOptions;
import io.vertx.ext.web.handler.sockjs.SockJSSocket;
import io.vertx.ext.web.handler.sockjs.impl.EventBusBridgeImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The event-bus bridge dashboards follow the cluster through ({@code /eventbus}, SockJS and its raw
 * WebSocket transport). Browsers only subscribe: no inbound address is permitted. Every REGISTER is
 * authenticated (session cookie, or a token in the frame's headers) and authorized by the topic that
 * owns the address; refusals get an error frame naming the address. A socket that cannot keep up is
 * closed rather than buffered without bound, and a revoked caller's sockets close. A subscription
 * whose caller loses access to what it follows (a grant taken back, a role removed) ends with an
 * error frame (403, {@code access_revoked}); the socket stays open. docs/dashboard.md.
 */
public final class EventBusBridge {

  private static final Logger LOG = LoggerFactory.getLogger(EventBusBridge.class);

  public static final String PATH = "/eventbus";
  /** Only these addresses ever leave the cluster; topics decide which of them a caller gets. */
  public static final String OUTBOUND = "conclave\\.events\\..+";
  public static final int MAX_ADDRESS_LENGTH = 300;
  public static final int MAX_SUBSCRIPTIONS_PER_SOCKET = 64;
  /** Outbound characters a socket may have waiting before it counts as a slow consumer. */
  public static final int MAX_QUEUED = 1024 * 1024;
  public static final short CLOSE_SLOW_CONSUMER = 4008;
  public static final short CLOSE_REVOKED = 4001;
  /** The largest body of a SockJS XHR send (several frames, each at most 1 MiB), as a WebSocket message. */
  static final long MAX_XHR_BODY = 4L * 1024 * 1024;
  /** WebSocket's own "message too big". */
  public static final short CLOSE_TOO_BIG = 1009;
  /** No caller authenticated on the socket within {@code CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS}. */
  public static final short CLOSE_UNAUTHENTICATED = 4002;
  /** The session cookie's principal already holds {@code CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL} connections or sockets. */
  public static final short CLOSE_TOO_MANY = 4029;
  /**
   * Where the session cookie's token waits on the routing context for the socket it opens: the edge
   * puts it there (server.SessionCookie#handOn, mounted on {@link #PATH} before the bridge), after its
   * cross-site rule; without it a socket has no session and must authenticate in its frames.
   */
  public static final String SESSION_TOKEN = "conclave.bridge.session";

  private final Vertx vertx;
  private final TokenService tokens;
  private final LiveCredentials live;
  private final List<BridgeTopic> topics;
  private final MeterRegistry metrics;
  private final ConnectionGuard guard;
  private final LiveAccess access;
  private final Map<SockJSSocket, BridgeSocket> sockets = new HashMap<>();

  public EventBusBridge(Vertx vertx, TokenService tokens, List<BridgeTopic> topics, MeterRegistry metrics, ConnectionGuard guard,
                        LiveAccess access) {
    this.vertx = vertx;
    this.guard = guard;
    this.access = access;
    this.tokens = tokens;
    this.live = tokens.live();
    this.topics = List.copyOf(topics);
    this.metrics = metrics;
  }

  public void mount(Router router) {
    SockJSBridgeOptions options = new SockJSBridgeOptions()
      .addOutboundPermitted(new PermittedOptions().setAddressRegex(OUTBOUND))
      .setMaxAddressLength(MAX_ADDRESS_LENGTH)
      .setMaxHandlersPerSocket(MAX_SUBSCRIPTIONS_PER_SOCKET);
    SockJSHandler sockJS = SockJSHandler.create(vertx, new SockJSHandlerOptions().setRegisterWriteHandler(false).setInsertJSESSIONID(false));
    // SockJS's XHR transports read their frames from the request body: bounded here (each frame by ScreenedSocket)
    router.post(PATH + "/*").handler(BodyHandler.create(false).setBodyLimit(MAX_XHR_BODY));
    // Vert.x's bridge, fed screened sockets (ScreenedSocket says why)
    EventBusBridgeImpl bridge = new EventBusBridgeImpl(vertx, null, options, this::onEvent);
    router.route(PATH + "/*").subRouter(sockJS.socketHandler(socket ->
      bridge.handle(new ScreenedSocket(vertx, socket, this::failed))));
  }

  /**
   * A frame Vert.x could not take (a message over the size limit): the socket is unusable after it,
   * so it is closed rather than left open and silent.
   */
  private void failed(SockJSSocket socket, Throwable failure) {
    if (sockets.containsKey(socket)) {
      drop(socket, CLOSE_TOO_BIG, "message too large or malformed", "socket_error");
    } else {
      socket.close(CLOSE_TOO_BIG, "message too large or malformed");
    }
  }

  private void onEvent(BridgeEvent event) {
    SockJSSocket socket = event.socket();
    BridgeEventType type = event.type();
    switch (type) {
      case SOCKET_CREATED -> opened(socket);
      case REGISTER -> {
        register(sockets.get(socket), event);
        return;
      }
      case REGISTERED -> subscribedMarker(socket, event.getRawMessage().getString("address"));
      case UNREGISTER -> unsubscribe(sockets.get(socket), event.getRawMessage().getString("address"));
      case SOCKET_CLOSED -> closed(socket);
      case RECEIVE -> {
        deliver(sockets.get(socket), event);
        return;
      }
      case SEND, PUBLISH -> {
        event.complete(false);
        return;
      }
      default -> {
      }
    }
    event.complete(true);
  }

  /**
   * Writes an outbound message itself (then tells the bridge not to), counting what the socket has
   * not yet taken: Vert.x's own write-queue check does not see a reader that stalls, the write
   * futures do. Past the bound the socket is closed, never buffered further.
   */
  private void deliver(BridgeSocket state, BridgeEvent event) {
    event.complete(false);
    if (state == null || state.closed) {
      return;
    }
    if (state.socket.writeQueueFull() || state.unwritten > MAX_QUEUED) {
      drop(state.socket, CLOSE_SLOW_CONSUMER, "slow consumer", "slow_consumer");
      return;
    }
    JsonObject message = event.getRawMessage();
    BridgeSocket.Subscription subscription = state.subscriptions.get(message.getString("address"));
    if (subscription == null) {
      return;
    }
    String frame = message.encode();
    state.unwritten += frame.length();
    Future<Boolean> visible = subscription.topic().visible(subscription.caller(), message.getString("address"), message.getValue("body"));
    if (state.deliveries.isComplete() && visible.isComplete()) {
      write(state, frame, visible.result() == Boolean.TRUE);
    } else {
      state.deliveries = state.deliveries.transform(v -> visible).transform(ar -> {
        if (ar.failed()) {
          // the rule could not be evaluated (the database, say): withheld, never shown by default
          metrics.counter(MetricNames.BRIDGE_WITHHELD).increment();
          LOG.warn("bridge message withheld: its visibility could not be checked address={} remote={} error={}",
            message.getString("address"), state.socket.remoteAddress(), ar.cause().toString());
        }
        // a subscription that ended meanwhile (its caller lost access) gets nothing more
        write(state, frame, ar.succeeded() && ar.result() == Boolean.TRUE
          && state.subscriptions.get(message.getString("address")) == subscription);
        return Future.succeededFuture();
      });
    }
  }

  private static void write(BridgeSocket state, String frame, boolean visible) {
    if (!visible || state.closed) {
      state.unwritten -= frame.length();
      return;
    }
    state.socket.write(frame).onComplete(ar -> state.unwritten -= frame.length());
  }

  private void opened(SockJSSocket socket) {
    socket.setWriteQueueMaxSize(MAX_QUEUED);
    Optional<String> cookie = socket.routingContext() == null ? Optional.empty()
      : Optional.ofNullable(socket.routingContext().<String>get(SESSION_TOKEN));
    // complete at once unless the cookie's token is new to this node
    Future<Optional<Caller>> session = cookie.isEmpty() ? Future.succeededFuture(Optional.empty())
      : tokens.authenticate(cookie.get(), TokenPurpose.browser()).map(Optional::of).recover(err -> {
        LOG.info("bridge socket with an unusable session cookie remote={} code={}", socket.remoteAddress(),
          Failures.classify(err).code());
        return Future.succeededFuture(Optional.empty());
      });
    BridgeSocket state = new BridgeSocket(socket, session);
    sockets.put(socket, state);
    session.onSuccess(caller -> {
      if (!state.closed) {
        opened(state, caller);
      }
    });
  }

  private void opened(BridgeSocket state, Optional<Caller> session) {
    SockJSSocket socket = state.socket;
    if (session.isPresent()) {
      hold(state, session.get()).ifPresent(refused -> drop(socket, CLOSE_TOO_MANY, refused.detail(), "too_many_connections"));
      if (!state.closed) {
        watch(state, session.get());
      }
      return;
    }
    // a socket nobody authenticates on is closed, as on the gRPC port: it would otherwise live on SockJS's heartbeats
    long timer = vertx.setTimer(guard.unauthenticatedTimeout().toMillis(), t -> {
      if (!state.holdsAny()) {
        drop(socket, CLOSE_UNAUTHENTICATED, "no caller authenticated within " + guard.unauthenticatedTimeout().toSeconds() + " s",
          "unauthenticated");
      }
    });
    state.onRelease(() -> vertx.cancelTimer(timer));
  }

  /**
   * Counts the socket against the caller's principal (once per principal) for as long as it is open;
   * the refusal when the principal already holds as many connections as it may.
   */
  private Optional<ConclaveException> hold(BridgeSocket state, Caller caller) {
    if (!state.firstHoldFor(caller)) {
      return Optional.empty();
    }
    ConnectionGuard.Admission admission = guard.admitSocket(state, caller);
    if (!admission.admitted()) {
      state.forgetHold(caller);
      return admission.refusal();
    }
    state.onRelease(admission.release());
    return Optional.empty();
  }

  private void register(BridgeSocket state, BridgeEvent event) {
    JsonObject frame = event.getRawMessage();
    String address = frame.getString("address", "");
    if (state == null || state.closed) {
      event.complete(false);
      return;
    }
    caller(state, frame).onComplete(ar -> {
      if (state.closed) {
        event.complete(false);
      } else if (ar.failed()) {
        refuse(state, event, address, "unauthenticated", Failures.classify(ar.cause()));
      } else {
        register(state, event, address, ar.result());
      }
    });
  }

  private void register(BridgeSocket state, BridgeEvent event, String address, Caller caller) {
    Optional<ConclaveException> tooMany = hold(state, caller);
    if (tooMany.isPresent()) {
      refuse(state, event, address, "too_many_connections", tooMany.get());
      return;
    }
    if (address.length() > MAX_ADDRESS_LENGTH || state.subscriptions.containsKey(address) || !state.pending.add(address)) {
      refuse(state, event, address, "invalid", ConclaveException.invalid("address_invalid",
        "already subscribed to '" + address + "', or the address is longer than " + MAX_ADDRESS_LENGTH + " characters"));
      return;
    }
    Optional<BridgeTopic> topic = topics.stream().filter(t -> t.owns(address)).findFirst();
    if (topic.isEmpty() || !address.matches(OUTBOUND)) {
      state.pending.remove(address);
      refuse(state, event, address, "unknown_address", ConclaveException.notFound("address_unknown",
        "no dashboard address '" + address + "' (docs/dashboard.md lists them)"));
      return;
    }
    long mark = access.mark();
    topic.get().authorize(caller, address)
      .compose(v -> topic.get().subscribed(address).map(v))
      .onComplete(ar -> {
        state.pending.remove(address);
        if (ar.failed()) {
          ConclaveException e = Failures.classify(ar.cause());
          refuse(state, event, address, e.kind() == ErrorKind.PERMISSION_DENIED ? "forbidden" : "failed", e);
        } else if (state.closed) {
          topic.get().unsubscribed(address);
          event.complete(false);
        } else {
          Runnable unwatch = topic.get().target(address)
            .<Runnable>map(t -> access.watch(caller, t, mark, why -> lost(state, address, why))::close).orElse(() -> { });
          state.subscriptions.put(address, new BridgeSocket.Subscription(topic.get(), caller, unwatch));
          watch(state, caller);
          metrics.counter(MetricNames.BRIDGE_SUBSCRIPTIONS).increment();
          event.complete(true);
        }
      });
  }

  /** The frame's own token wins over the session cookie, so a program without a cookie can subscribe. */
  private Future<Caller> caller(BridgeSocket state, JsonObject frame) {
    // a frame's headers and token are the client's to get wrong: anything but an object and a string is no token
    JsonObject headers = frame.getValue("headers") instanceof JsonObject h ? h : null;
    String authorization = headers != null && headers.getValue("authorization") instanceof String a ? a : null;
    if (authorization != null) {
      try {
        return tokens.authenticate(Bearer.token(authorization), TokenPurpose.browser());
      } catch (ConclaveException e) {
        return Future.failedFuture(e);
      }
    }
    return state.session.map(session -> session.orElseThrow(() -> new ConclaveException(ErrorKind.UNAUTHENTICATED,
      "bridge_unauthenticated",
      "not authenticated: log in (POST /auth/session) or send 'authorization: Bearer <token>' in the register frame's headers")));
  }

  private void refuse(BridgeSocket state, BridgeEvent event, String address, String reason, ConclaveException why) {
    metrics.counter(MetricNames.BRIDGE_REFUSALS, "reason", reason).increment();
    LOG.warn("bridge subscription refused address={} reason={} code={} remote={}", address, reason, why.code(), state.socket.remoteAddress());
    if (!state.closed) {
      state.socket.write(new JsonObject().put("type", "err").put("address", address)
        .put("failureCode", why.kind().httpStatus()).put("failureType", "rejected").put("message", why.detail()).encode());
    }
    event.complete(false);
  }

  private void subscribedMarker(SockJSSocket socket, String address) {
    BridgeSocket state = sockets.get(socket);
    if (state != null && !state.closed) {
      socket.write(new JsonObject().put("type", "rec").put("address", address)
        .put("body", new JsonObject().put("subscribed", true)).encode());
    }
  }

  private void unsubscribe(BridgeSocket state, String address) {
    if (state != null && address != null) {
      BridgeSocket.Subscription subscription = state.subscriptions.remove(address);
      if (subscription != null) {
        subscription.unwatch().run();
        subscription.topic().unsubscribed(address);
      }
    }
  }

  /**
   * The subscription's caller lost access to what it follows: an error frame names the address and
   * why, nothing more of it is delivered, and Vert.x's bridge lets go of it too (the client may
   * subscribe again, and is then checked again). The socket and its other subscriptions go on.
   */
  private void lost(BridgeSocket state, String address, ConclaveException why) {
    if (state.closed || !state.subscriptions.containsKey(address)) {
      return;
    }
    LOG.info("bridge subscription ended address={} code={} remote={}", address, why.code(), state.socket.remoteAddress());
    unsubscribe(state, address);
    state.socket.write(new JsonObject().put("type", "err").put("address", address)
      .put("failureCode", why.kind().httpStatus()).put("failureType", why.code()).put("message", why.detail()).encode());
    if (state.socket instanceof ScreenedSocket screened) {
      screened.unregister(address);
    }
  }

  private void watch(BridgeSocket state, Caller caller) {
    if (state.firstWatchOf(caller)) {
      state.onRelease(live.watch(caller, reason -> drop(state.socket, CLOSE_REVOKED, "credentials revoked: " + reason, "revoked")));
    }
  }

  private void drop(SockJSSocket socket, short code, String reason, String metric) {
    BridgeSocket state = sockets.get(socket);
    if (state == null || state.closed) {
      return;
    }
    metrics.counter(MetricNames.BRIDGE_DROPPED_SOCKETS, "reason", metric).increment();
    LOG.info("bridge socket closed by the node remote={} reason={}", socket.remoteAddress(), reason);
    closed(socket);
    socket.close(code, reason);
  }

  private void closed(SockJSSocket socket) {
    BridgeSocket state = sockets.remove(socket);
    if (state == null || state.closed) {
      return;
    }
    state.closed = true;
    state.subscriptions.forEach((address, subscription) -> {
      subscription.unwatch().run();
      subscription.topic().unsubscribed(address);
    });
    state.subscriptions.clear();
    state.releaseAll();
  }
}
