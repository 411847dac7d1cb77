package dev.conclave.platform.health;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.healthchecks.HealthChecks;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.healthchecks.HealthCheckHandler;
import io.vertx.grpc.health.HealthService;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.Service;
import io.vertx.sqlclient.Pool;

import java.util.function.Supplier;

/**
 * The node's health: {@code /health/live}, {@code /health/ready} and the standard gRPC health
 * service all answer from the same checks. Ready means the database answers (a pooled connection and
 * a new one), every deployed
 * verticle has started and the node is not draining (and, when clustered, the cluster is safe).
 */
public final class NodeHealth {

  private static final long CHECK_TIMEOUT_MS = 3_000;

  private final Vertx vertx;
  private final HealthChecks checks;
  private final Readiness readiness;

  /**
   * @param connect opens a new connection to the node's database, outside the pool: the pool's open
   *                connections keep working while the server refuses new ones (shutting down, out of
   *                connection slots), and readiness must see that
   */
  public NodeHealth(Vertx vertx, Pool pool, Supplier<Future<io.vertx.sqlclient.SqlConnection>> connect, Readiness readiness) {
    this.vertx = vertx;
    this.readiness = readiness;
    this.checks = HealthChecks.create(vertx);
    FreshConnectionCheck fresh = new FreshConnectionCheck(vertx, connect);
    checks.register("database", CHECK_TIMEOUT_MS, promise -> pool.query("SELECT 1").execute()
      .compose(rows -> fresh.check())
      .onSuccess(rows -> promise.complete(Status.OK()))
      .onFailure(err -> promise.complete(Status.KO(new JsonObject().put("error", String.valueOf(err.getMessage()))))));
    checks.register("verticles", CHECK_TIMEOUT_MS, promise -> promise.complete(
      readiness.ready() ? Status.OK() : Status.KO(new JsonObject().put("state", readiness.state().name().toLowerCase()))));
  }

  /** Adds a named check given as a Vert.x health procedure (for example Hazelcast's ClusterHealthCheck). */
  public void registerProcedure(String name, io.vertx.core.Handler<io.vertx.core.Promise<Status>> procedure) {
    checks.register(name, CHECK_TIMEOUT_MS, procedure);
  }

  /** Adds a named check. */
  public void register(String name, Supplier<Future<Boolean>> check) {
    checks.register(name, CHECK_TIMEOUT_MS, promise -> check.get()
      .onSuccess(ok -> promise.complete(ok ? Status.OK() : Status.KO()))
      .onFailure(err -> promise.complete(Status.KO(new JsonObject().put("error", String.valueOf(err.getMessage()))))));
  }

  public void mountHttp(Router router) {
    router.get("/health/live").handler(ctx -> ctx.response()
      .putHeader("content-type", "application/json")
      .end(new JsonObject().put("status", "UP").encode()));
    router.get("/health/ready").handler(HealthCheckHandler.createWithHealthChecks(checks));
  }

  /**
   * The standard {@code grpc.health.v1.Health} service. The overall status ("") and every service on
   * {@code server} report SERVING exactly when the node is ready.
   */
  public Service grpcService(GrpcServer server) {
    HealthService health = HealthService.create(vertx);
    health.register("", this::readyNow);
    for (Service service : server.services()) {
      health.register(service.name().fullyQualifiedName(), this::readyNow);
    }
    return health;
  }

  /** Runs every check; each one's result. */
  public Future<io.vertx.ext.healthchecks.CheckResult> results() {
    return checks.checkStatus();
  }

  /** Runs every check; true when all are up. */
  public Future<Boolean> readyNow() {
    return checks.checkStatus().map(result -> result.getUp());
  }

  public Readiness readiness() {
    return readiness;
  }
}
