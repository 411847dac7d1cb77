package dev.conclave.e2e.swarm;

import dev.conclave.platform.config.PgUrl;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The floor under the coordinator's HTTP claim+complete, for {@link SwarmBench} (a measurement, not a
 * second implementation: nothing but the benchmark runs it). The same endpoints, the same load
 * generator, the same PostgreSQL, client library, connection (TCP to 127.0.0.1: the node in this
 * benchmark is given the server's URL, not its Unix socket) and batching (one statement in flight per
 * event loop, the requests that arrived meanwhile in the next), and nothing of the protocol: no
 * authentication, no checks, no agents' rows, events, history or learnings, and answers of a task id.
 * Each batch is one statement: the two bare UPDATEs of {@link SqlLadder}'s rung 0, the completes and
 * the claims together.
 *
 * <p>Whatever the coordinator does, a claim+complete over HTTP in this design costs at least what this
 * costs. It answers a CLAIM {@code {"success": true, "task": {"id": …}}}, or {@code all_tasks_claimed}
 * when its batch found no task for the agent, and a COMPLETE {@code {"success": true}}.
 */
final class BareClaims implements AutoCloseable {

  /**
   * Whom the floor's tasks go to: "floor:" and the agent, an agent the node does not know. (The agents
   * are the node's too; its stale-agent reaper, seeing them idle there, failed their tasks, the floor's,
   * and deadlocked with the floor's UPDATEs.)
   */
  private static final String FLOOR_AGENT = "floor:";

  /** Completes ($2, task ids) and claims (one task for each agent in $1, in claim order) at $3, in one statement. */
  static final String BATCH = "WITH done AS (UPDATE swarm.tasks t SET status = 'completed', result = '{\"summary\": \"done\"}', "
    + "quality = '{\"success\": true, \"qualityGatePassed\": true, \"regressions\": [], \"nextAction\": \"proceed\"}', "
    + "completed_by = t.assigned_agent, completed_at = $3, updated_at = $3 WHERE t.id = ANY ($2::text[]) RETURNING t.id), "
    + "k AS MATERIALIZED (SELECT x.id, row_number() OVER () AS n FROM (SELECT id FROM swarm.tasks WHERE status = 'ready' "
    + "ORDER BY swarm.priority_rank(priority), created_at, seq LIMIT cardinality($1::text[]) FOR UPDATE SKIP LOCKED) x), "
    // (= ANY as well as the join, as in swarm.claim_batch: see SqlLadder)
    + "c AS (UPDATE swarm.tasks t SET status = 'claimed', assigned_agent = '" + FLOOR_AGENT + "' || ($1::text[])[k.n], "
    + "claimed_at = $3, started_at = NULL, "
    + "progress = NULL, next_retry_at = NULL, updated_at = $3 FROM k WHERE t.id = k.id AND t.id = ANY (ARRAY(SELECT id FROM k)) "
    + "RETURNING t.id, t.assigned_agent) "
    // (done need not be read: PostgreSQL runs a data-modifying WITH to completion either way)
    + "SELECT c.id, c.assigned_agent FROM c";

  private static final String CLAIM_PATH = "/api/v1/tasks/claim";
  private static final String TASKS_PREFIX = "/api/v1/tasks/";
  private static final String COMPLETE_SUFFIX = "/complete";
  private static final Buffer NONE = Buffer.buffer("{\"success\":false,\"reason\":\"all_tasks_claimed\"}");
  private static final Buffer DONE = Buffer.buffer("{\"success\":true}");

  private final Vertx vertx;
  private final Pool pool;

  private BareClaims(Vertx vertx, Pool pool) {
    this.vertx = vertx;
    this.pool = pool;
  }

  /** Starts the floor on {@code port} with {@code instances} event loops, as the node's edge has, and a pool of {@code poolSize}. */
  static BareClaims start(PgUrl db, int port, int instances, int poolSize) throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(poolSize).setShared(false))
      .connectingTo(db.connectOptions()).using(vertx).build();
    vertx.deployVerticle(() -> new Server(pool, port), new DeploymentOptions().setInstances(instances))
      .await(30, TimeUnit.SECONDS);
    return new BareClaims(vertx, pool);
  }

  @Override
  public void close() throws Exception {
    pool.close().await(30, TimeUnit.SECONDS);
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  /** One event loop's HTTP server and batch. */
  private static final class Server extends VerticleBase {

    private record Claim(String agent, HttpServerRequest request) {
    }

    private record Complete(String taskId, HttpServerRequest request) {
    }

    private final Pool pool;
    private final int port;
    private final ArrayDeque<Claim> claims = new ArrayDeque<>();
    private final ArrayDeque<Complete> completes = new ArrayDeque<>();
    private boolean inFlight;
    private HttpServer http;

    Server(Pool pool, int port) {
      this.pool = pool;
      this.port = port;
    }

    @Override
    public Future<?> start() {
      http = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(port)).requestHandler(this::handle);
      return http.listen();
    }

    private void handle(HttpServerRequest req) {
      String path = req.path();
      if (req.method() != HttpMethod.POST) {
        req.response().setStatusCode(405).end();
      } else if (CLAIM_PATH.equals(path)) {
        // the node reads every body as JSON, and so does the floor
        req.body().onSuccess(body -> {
          claims.add(new Claim(body.toJsonObject().getString("agentId"), req));
          drain();
        });
      } else if (path.startsWith(TASKS_PREFIX) && path.endsWith(COMPLETE_SUFFIX)) {
        req.body().onSuccess(body -> {
          body.toJsonObject();
          completes.add(new Complete(path.substring(TASKS_PREFIX.length(), path.length() - COMPLETE_SUFFIX.length()), req));
          drain();
        });
      } else {
        req.response().setStatusCode(404).end();
      }
    }

    private void drain() {
      if (inFlight || (claims.isEmpty() && completes.isEmpty())) {
        return;
      }
      inFlight = true;
      List<Claim> batchClaims = new ArrayList<>(claims);
      List<Complete> batchCompletes = new ArrayList<>(completes);
      String[] agents = batchClaims.stream().map(Claim::agent).toArray(String[]::new);
      String[] done = batchCompletes.stream().map(Complete::taskId).toArray(String[]::new);
      claims.clear();
      completes.clear();
      pool.preparedQuery(BATCH).execute(Tuple.of(agents, done, java.time.OffsetDateTime.now())).onComplete(ar -> {
        inFlight = false;
        if (ar.failed()) {
          batchClaims.forEach(c -> c.request().response().setStatusCode(500).end(ar.cause().getMessage()));
          batchCompletes.forEach(c -> c.request().response().setStatusCode(500).end(ar.cause().getMessage()));
        } else {
          Map<String, String> tasks = new HashMap<>();
          for (Row row : ar.result()) {
            if (row.getString(0) != null) {
              tasks.put(row.getString(1).substring(FLOOR_AGENT.length()), row.getString(0));
            }
          }
          for (Claim c : batchClaims) {
            String task = tasks.get(c.agent());
            c.request().response().putHeader("content-type", "application/json")
              .end(task == null ? NONE : Buffer.buffer("{\"success\":true,\"task\":{\"id\":\"" + task + "\"}}"));
          }
          batchCompletes.forEach(c -> c.request().response().putHeader("content-type", "application/json").end(DONE));
        }
        drain();
      });
    }

    @Override
    public Future<?> stop() {
      return http == null ? Future.succeededFuture() : http.close();
    }
  }
}
