package dev.conclave.agent.testing;

import dev.conclave.agent.Endpoint;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CovenControlGrpcService;
import dev.conclave.proto.coven.RegisterAgent;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.common.GrpcHeaderNames;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServer;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A scriptable stand-in for the gateway's agent side, on the real Vert.x gRPC server over
 * 127.0.0.1. It records every stream and what the agent sent on it; tests drive the gateway side
 * through {@link AgentConn}. By default it welcomes every registration.
 */
public final class FakeGateway implements AutoCloseable {

  /** Decides how the gateway answers a {@code RegisterAgent}. Runs on the server's event loop. */
  @FunctionalInterface
  public interface RegistrationScript {
    void onRegister(AgentConn conn, RegisterAgent register);
  }

  /** How long a wait for the agent's next step lasts: {@link Wait#DEFAULT}. */
  public static final Duration WAIT = Wait.DEFAULT;

  private final Vertx vertx;
  private final String serverId;
  private final LinkedBlockingQueue<AgentConn> accepted = new LinkedBlockingQueue<>();
  private final List<AgentConn> all = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private volatile RegistrationScript script = (conn, reg) -> conn.welcome();
  private volatile String requiredToken;
  private HttpServer http;

  private FakeGateway(Vertx vertx, String serverId) {
    this.vertx = vertx;
    this.serverId = serverId;
  }

  /** Starts a gateway double on an ephemeral port. */
  public static FakeGateway start(Vertx vertx, String serverId) {
    return start(vertx, serverId, 0);
  }

  public static FakeGateway start(Vertx vertx, String serverId, int port) {
    FakeGateway g = new FakeGateway(vertx, serverId);
    g.listen(port, new HttpServerOptions());
    return g;
  }

  /** A gateway double speaking TLS only (ALPN h2), with {@code tls}'s certificate and, if it names CAs, requiring client certificates. */
  public static FakeGateway startTls(Vertx vertx, String serverId, HttpServerOptions tls) {
    FakeGateway g = new FakeGateway(vertx, serverId);
    g.listen(0, tls);
    return g;
  }

  private void listen(int port, HttpServerOptions options) {
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.callHandler(CovenControlGrpcService.AgentStream, request -> {
      AgentConn conn = new AgentConn(this, request, Vertx.currentContext());
      all.add(conn);
      accepted.add(conn);
    });
    http = vertx.createHttpServer(new HttpServerOptions(options).setHost("127.0.0.1").setPort(port))
      .requestHandler(req -> {
        String auth = req.getHeader("authorization");
        authorizations.add(String.valueOf(auth));
        String token = requiredToken;
        if (token != null && !("Bearer " + token).equals(auth)) {
          // like the real gateway's auth gate: a trailers-only UNAUTHENTICATED answer
          req.response().setStatusCode(200)
            .putHeader("content-type", "application/grpc")
            .putHeader(GrpcHeaderNames.GRPC_STATUS, String.valueOf(GrpcStatus.UNAUTHENTICATED.code))
            .putHeader(GrpcHeaderNames.GRPC_MESSAGE, "token%20rejected")
            .end();
          return;
        }
        grpc.handle(req);
      });
    Wait.result(http.listen());
  }

  public String serverId() {
    return serverId;
  }

  public int port() {
    return http.actualPort();
  }

  public Endpoint endpoint() {
    return new Endpoint("127.0.0.1", port());
  }

  public FakeGateway onRegister(RegistrationScript script) {
    this.script = script;
    return this;
  }

  RegistrationScript script() {
    return script;
  }

  /** Calls without {@code authorization: Bearer <token>} are refused with UNAUTHENTICATED. */
  public FakeGateway requireToken(String token) {
    this.requiredToken = token;
    return this;
  }

  /** The authorization headers of every call, in order. */
  public List<String> authorizations() {
    return new ArrayList<>(authorizations);
  }

  /** The next stream the agent opens. */
  public AgentConn nextConnection() {
    return nextConnection(WAIT);
  }

  public AgentConn nextConnection(Duration within) {
    try {
      AgentConn c = accepted.poll(within.toMillis(), TimeUnit.MILLISECONDS);
      if (c == null) {
        throw new AssertionError("no agent stream reached gateway " + serverId + " within " + within.toMillis() + " ms");
      }
      return c;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Asserts that no further stream arrives within {@code within}. */
  public void expectNoConnection(Duration within) {
    try {
      AgentConn c = accepted.poll(within.toMillis(), TimeUnit.MILLISECONDS);
      if (c != null) {
        throw new AssertionError("unexpected agent stream reached gateway " + serverId);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Every stream accepted so far. */
  public List<AgentConn> connections() {
    return new ArrayList<>(all);
  }

  /** Stops listening and drops every connection, like a node that dies. */
  @Override
  public void close() {
    if (http != null) {
      Wait.result(http.close());
    }
  }

  /** A TCP port nothing listens on, for an endpoint that is down. */
  public static int deadPort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static AgentMessage.PayloadCase kind(AgentMessage m) {
    return m.getPayloadCase();
  }
}
