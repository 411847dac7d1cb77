package dev.conclave.platform.server;

import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.bridge.EventBusBridge;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.health.NodeHealth;
import dev.conclave.platform.metrics.NodeMetrics;
import dev.conclave.platform.tls.EdgeTls;
import dev.conclave.platform.tls.TlsMaterial;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.grpc.reflection.ReflectionService;
import io.vertx.grpc.server.GrpcProtocol;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One instance of the node's network edge: a gRPC server and an HTTP server, with the
 * contributions of every deployed role. Several instances share the two ports, one per event loop.
 */
public final class EdgeVerticle extends VerticleBase {

  /** What every edge instance is built from. */
  public record Setup(ConclaveConfig config, TokenService tokens, PrincipalStore principals, java.time.Clock clock, EdgeSecurity edge,
                      NodeHealth health, NodeMetrics metrics, List<EdgeContribution> contributions, Optional<EdgeTls> tls) {
  }

  /** Largest HTTP request body the REST API accepts. */
  static final long MAX_HTTP_BODY_BYTES = 4L * 1024 * 1024;

  private final Setup setup;
  private HttpServer grpcHttp;
  private HttpServer http;
  private HttpServerOptions grpcOptions;
  private HttpServerOptions httpOptions;
  private List<String> grpcServices = List.of();

  public EdgeVerticle(Setup setup) {
    this.setup = setup;
  }

  @Override
  public Future<?> start() {
    ConclaveConfig config = setup.config();
    // gRPC and gRPC-Web only: HTTP/JSON transcoding serves none of our methods, and Vert.x answers an
    // unknown transcoded path with 500
    GrpcServer grpc = GrpcServer.server(vertx, new GrpcServerOptions().setMaxMessageSize(config.maxMessageBytes())
      .removeEnabledProtocol(GrpcProtocol.TRANSCODING));
    setup.contributions().forEach(c -> c.bindGrpc(grpc));
    grpc.addService(ReflectionService.v1());
    grpc.addService(setup.health().grpcService(grpc));
    grpcServices = grpc.services().stream().map(s -> s.name().fullyQualifiedName()).sorted().toList();

    Router router = Router.router(vertx);
    router.route().handler(RequestShape::check);
    router.route().handler(CrossSite::socketsOnlyWhereRuled);
    setup.health().mountHttp(router);
    router.get("/metrics").handler(setup.metrics().scrapeHandler());
    // the body is read first (bounded) because some credentials sign it
    router.route("/api/*").handler(BodyHandler.create(false).setBodyLimit(MAX_HTTP_BODY_BYTES));
    List<HttpCredentials> credentials = setup.contributions().stream().flatMap(c -> c.httpCredentials().stream()).toList();
    router.route("/api/*").handler(new HttpAuthHandler(setup.tokens(), credentials, setup.edge()));
    setup.contributions().forEach(c -> c.bindHttp(router));
    new SessionEndpoint(setup.tokens(), setup.principals(), setup.edge(), setup.clock()).mount(router);
    // SockJS strips cookies from the headers its sockets see (and, for its own transports, from the
    // request): the session cookie's token is taken before the bridge, under the cross-site rule
    router.route(EventBusBridge.PATH + "/*").handler(ctx -> SessionCookie.handOn(ctx, EventBusBridge.SESSION_TOKEN));
    new EventBusBridge(vertx, setup.tokens(), setup.contributions().stream().flatMap(c -> c.bridgeTopics().stream()).toList(),
      setup.metrics().registry(), setup.edge().guard(), setup.edge().liveAccess()).mount(router);
    ConsoleAssets.mount(router);
    undeclared(router).ifPresent(route -> {
      throw new IllegalStateException("HTTP route " + route + " was mounted without declaring who may call it (use HttpRoutes)");
    });
    router.route().last().handler(ctx -> Problems.send(ctx.response(),
      ConclaveException.notFound("route_not_found", "no route for " + ctx.request().method() + " " + ctx.request().path())));
    router.route().failureHandler(ctx -> {
      if (ctx.failure() != null) {
        Problems.send(ctx, ctx.failure());
      } else if (ctx.statusCode() == 413) {
        // the rest of the body is never read: an HTTP/1 client still sending it would wait on a full
        // TCP window for an answer it cannot read, so the connection closes after the answer
        if (ctx.request().version() != io.vertx.core.http.HttpVersion.HTTP_2) {
          ctx.response().putHeader("connection", "close");
        }
        Problems.send(ctx.response(), new ConclaveException(ErrorKind.PAYLOAD_TOO_LARGE, "body_too_large",
          "request bodies are limited to " + MAX_HTTP_BODY_BYTES + " bytes"));
      } else {
        Problems.send(ctx.response(), new ConclaveException(ErrorKind.INVALID_ARGUMENT, "bad_request",
          "request failed with status " + ctx.statusCode()));
      }
    });

    grpcOptions = ServerOptions.grpc(config);
    httpOptions = ServerOptions.http(config);
    setup.tls().ifPresent(tls -> {
      tls.grpc(grpcOptions);
      tls.http(httpOptions);
    });
    grpcHttp = vertx.createHttpServer(grpcOptions).requestHandler(new GrpcAuthGate(vertx, grpc, setup.tokens(),
      setup.contributions().stream().flatMap(c -> c.grpcCredentials().stream()).toList(), setup.edge(), setup.edge().guard()))
      .connectionHandler(connection -> {
        // Vert.x would close the whole connection over one stream's failed write (a client's cancel)
        Http2StreamErrors.install(connection);
        setup.edge().guard().opened(connection);
      });
    HttpDeadlines deadlines = new HttpDeadlines(vertx, new HttpDeadlines.Limits(config.get(NodeSettings.HTTP_HEADER_TIMEOUT),
      config.get(NodeSettings.HTTP_BODY_TIMEOUT)), setup.metrics().registry());
    http = vertx.createHttpServer(httpOptions).connectionHandler(deadlines::opened).requestHandler(request -> {
      deadlines.request(request);
      if (RequestShape.admit(request)) {
        router.handle(request);
      }
    });
    return Future.all(grpcHttp.listen(), http.listen());
  }

  /**
   * Renewed TLS material for both ports: new connections use it, open ones keep theirs. The instances
   * share their ports, and Vert.x applies an update to the shared server, so one instance's call is enough.
   */
  public Future<?> useTls(TlsMaterial renewed) {
    return Future.all(grpcHttp.updateSSLOptions(EdgeTls.renewed(grpcOptions, renewed)),
      http.updateSSLOptions(EdgeTls.renewed(httpOptions, renewed)));
  }

  /** An authenticated route ({@code /api/…}) mounted directly on the router instead of through {@link HttpRoutes}. */
  private java.util.Optional<String> undeclared(Router router) {
    java.util.Set<String> declared = new java.util.HashSet<>();
    setup.edge().routes().all().forEach(r -> declared.add(r.method() + " " + r.path()));
    for (io.vertx.ext.web.Route route : router.getRoutes()) {
      String path = route.getPath();
      if (path == null || !path.startsWith("/api/") || route.methods() == null || route.methods().isEmpty()) {
        continue;
      }
      for (io.vertx.core.http.HttpMethod m : route.methods()) {
        if (!declared.contains(m.name() + " " + path)) {
          return java.util.Optional.of(m.name() + " " + path);
        }
      }
    }
    return java.util.Optional.empty();
  }

  /** Stops accepting and lets in-flight calls finish, bounded by the shutdown grace. */
  @Override
  public Future<?> stop() {
    long grace = setup.config().shutdownGrace().toMillis();
    return Future.join(grpcHttp.shutdown(grace, TimeUnit.MILLISECONDS), http.shutdown(grace, TimeUnit.MILLISECONDS));
  }

  public int grpcPort() {
    return grpcHttp.actualPort();
  }

  /** Fully qualified names of the gRPC services this edge serves. */
  public List<String> grpcServices() {
    return grpcServices;
  }

  public int httpPort() {
    return http.actualPort();
  }
}
