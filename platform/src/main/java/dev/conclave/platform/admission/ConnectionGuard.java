package dev.conclave.platform.admission;

import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Bounds what a caller can hold open on this node's gRPC port, for every edge instance at once.
 *
 * <ul>
 *   <li>A connection on which no call has authenticated within {@code CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS}
 *       is closed: idle, slow (headers never finished) and refused-only connections alike. Before
 *       the server knows the protocol (the 24-byte HTTP/2 preface not yet read) the port's idle
 *       timeout, of the same length, applies. Once a call on it authenticates, the connection loses
 *       its idle timeout and lives as long as its peer wants: long-lived streams keep their PINGs
 *       and heartbeats.</li>
 *   <li>One principal holds at most {@code CONCLAVE_MAX_CALLS_PER_PRINCIPAL} calls in progress and at
 *       most {@code CONCLAVE_MAX_CONNECTIONS_PER_PRINCIPAL} connections with a call of its in progress;
 *       a call beyond either is {@code RESOURCE_EXHAUSTED}.</li>
 *   <li>A WebSocket on the HTTP port (a session socket, a dashboard's bridge socket) counts as one
 *       connection with one call in progress, for as long as it is open: the same two limits bound
 *       them, together with the principal's gRPC calls ({@link #admitSocket}).</li>
 * </ul>
 *
 * <p>A call's place is given back on every path: when its response ends, when its stream closes
 * (a cancel), when it was already closed by the time it was admitted (a cancel that came while its
 * credentials were checked: SSH signatures are checked against PostgreSQL), and at the latest when its
 * connection closes. Vert.x never runs the end and close handlers of a stream that closed before they
 * were set, so a place whose release hung on them alone was held for good.
 */
public final class ConnectionGuard {

  /** The settings, read once by the node. */
  public record Limits(Duration unauthenticatedTimeout, int maxCallsPerPrincipal, int maxConnectionsPerPrincipal) {
  }

  /** What one principal holds: its calls in progress, per connection (an HTTP/2 connection or a WebSocket). */
  private static final class Holdings {
    int calls;
    final Map<Object, Integer> perConnection = new java.util.HashMap<>();
  }

  private final Vertx vertx;
  private final Limits limits;
  private final Set<HttpConnection> authenticated = ConcurrentHashMap.newKeySet();
  /** The releases of the calls admitted on each open gRPC connection, run when it closes if not before. */
  private final Map<HttpConnection, Set<Runnable>> admittedOn = new ConcurrentHashMap<>();
  private final Map<UUID, Holdings> holdings = new ConcurrentHashMap<>();
  private final io.micrometer.core.instrument.Counter idleClosed;
  private final io.micrometer.core.instrument.Counter callsRefused;
  private final io.micrometer.core.instrument.Counter connectionsRefused;

  /** The node's guard, with its limits from the configuration. */
  public static ConnectionGuard of(Vertx vertx, ConclaveConfig config, MeterRegistry registry) {
    return new ConnectionGuard(vertx, new Limits(config.get(NodeSettings.UNAUTHENTICATED_TIMEOUT), config.get(NodeSettings.MAX_CALLS_PER_PRINCIPAL),
      config.get(NodeSettings.MAX_CONNECTIONS_PER_PRINCIPAL)), registry);
  }

  public ConnectionGuard(Vertx vertx, Limits limits, MeterRegistry registry) {
    this.vertx = vertx;
    this.limits = limits;
    this.idleClosed = registry.counter(MetricNames.EDGE_CONNECTIONS_CLOSED, "reason", "unauthenticated");
    this.callsRefused = registry.counter(MetricNames.EDGE_CALLS_REFUSED, "reason", "calls_per_principal");
    this.connectionsRefused = registry.counter(MetricNames.EDGE_CALLS_REFUSED, "reason", "connections_per_principal");
  }

  /** A new connection on the gRPC port: it has the unauthenticated timeout to authenticate a call. */
  public void opened(HttpConnection connection) {
    long timer = vertx.setTimer(limits.unauthenticatedTimeout().toMillis(), t -> {
      if (!authenticated.contains(connection)) {
        idleClosed.increment();
        connection.close();
      }
    });
    connection.closeHandler(v -> {
      vertx.cancelTimer(timer);
      authenticated.remove(connection);
      Set<Runnable> releases = admittedOn.remove(connection);
      if (releases != null) {
        List.copyOf(releases).forEach(Runnable::run);
      }
    });
  }

  /**
   * A call authenticated as {@code caller}: marks its connection authenticated and counts the call
   * against the principal until its response ends or its stream closes; or the refusal, when the
   * principal is at one of its limits.
   */
  public Optional<ConclaveException> admit(HttpServerRequest request, Caller caller) {
    HttpConnection connection = request.connection();
    if (authenticated.add(connection)) {
      keepOpen(connection);
    }
    Admission admission = hold(caller.principalId(), connection);
    if (admission.refusal().isEmpty()) {
      HttpServerResponse response = request.response();
      if (response.closed() || response.ended()) {
        // gone before it was admitted (a cancel while its credentials were checked): no handler would run
        admission.release().run();
      } else {
        Set<Runnable> open = admittedOn.computeIfAbsent(connection, c -> ConcurrentHashMap.newKeySet());
        open.add(admission.release());
        Runnable release = () -> {
          open.remove(admission.release());
          admission.release().run();
        };
        response.endHandler(v -> release.run());
        response.closeHandler(v -> release.run());
      }
    }
    return admission.refusal();
  }

  /**
   * A WebSocket held open by {@code caller} ({@code socket} is what identifies it): counted as one
   * connection with one call in progress until {@link Admission#release} runs; or the refusal, when
   * the principal is at one of its limits. Release once the socket closes.
   */
  public Admission admitSocket(Object socket, Caller caller) {
    return hold(caller.principalId(), socket);
  }

  /** How long a connection may stay open without an authenticated caller ({@code CONCLAVE_UNAUTHENTICATED_TIMEOUT_SECONDS}). */
  public Duration unauthenticatedTimeout() {
    return limits.unauthenticatedTimeout();
  }

  /** A holding admitted (release it when it ends; releasing twice is harmless), or the refusal. */
  public record Admission(Optional<ConclaveException> refusal, Runnable release) {
    public boolean admitted() {
      return refusal.isEmpty();
    }
  }

  private Admission hold(UUID principal, Object connection) {
    ConclaveException[] refusal = {null};
    holdings.compute(principal, (id, h) -> {
      Holdings held = h == null ? new Holdings() : h;
      if (held.calls >= limits.maxCallsPerPrincipal()) {
        refusal[0] = tooMany("calls", limits.maxCallsPerPrincipal(), NodeSettings.MAX_CALLS_PER_PRINCIPAL.name());
      } else if (!held.perConnection.containsKey(connection) && held.perConnection.size() >= limits.maxConnectionsPerPrincipal()) {
        refusal[0] = tooMany("connections", limits.maxConnectionsPerPrincipal(), NodeSettings.MAX_CONNECTIONS_PER_PRINCIPAL.name());
      } else {
        held.calls++;
        held.perConnection.merge(connection, 1, Integer::sum);
      }
      return held.calls == 0 ? null : held;
    });
    if (refusal[0] != null) {
      (refusal[0].code().equals("too_many_calls") ? callsRefused : connectionsRefused).increment();
      return new Admission(Optional.of(refusal[0]), () -> { });
    }
    AtomicBoolean released = new AtomicBoolean();
    Runnable release = () -> {
      if (released.compareAndSet(false, true)) {
        holdings.computeIfPresent(principal, (id, held) -> {
          held.calls--;
          held.perConnection.computeIfPresent(connection, (c, n) -> n == 1 ? null : n - 1);
          return held.calls == 0 ? null : held;
        });
      }
    };
    return new Admission(Optional.empty(), release);
  }

  /** Removes the port's idle timeout from an authenticated connection (Vert.x offers no API for it). */
  private static void keepOpen(HttpConnection connection) {
    if (connection instanceof io.vertx.core.net.impl.ConnectionBase base) {
      io.netty.channel.ChannelPipeline pipeline = base.channel().pipeline();
      if (pipeline.get(IDLE_HANDLER) != null) {
        pipeline.remove(IDLE_HANDLER);
      }
    }
  }

  /** The name Vert.x gives the idle-timeout handler in a server connection's pipeline. */
  private static final String IDLE_HANDLER = "idle";

  private static ConclaveException tooMany(String what, int max, String setting) {
    return new ConclaveException(ErrorKind.RATE_LIMITED, "too_many_" + what,
      "this principal already holds " + max + " " + what + " on this node, the most it may (" + setting + ")");
  }
}
