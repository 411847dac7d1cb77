package dev.conclave.e2e.swarm;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code agents} agents, each a loop of CLAIM then COMPLETE over HTTP (keep-alive connections to
 * 127.0.0.1), until no task is left, {@code limit} tasks were completed, or the budget has passed.
 */
final class HttpClaimers {

  record Result(long completed, long emptyClaims, Duration took) {
    double perSecond() {
      return completed / (took.toNanos() / 1e9);
    }
  }

  private final Vertx vertx;
  private final java.util.Set<Long> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final WebClient client;
  private final int port;
  private final String token;

  HttpClaimers(int port, String token, int connections) {
    this.vertx = Vertx.vertx();
    this.client = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(connections));
    this.port = port;
    this.token = token;
  }

  /** The threads the clients' responses were handled on: the load generator's CPU. */
  java.util.Set<Long> threads() {
    return threads;
  }

  /** GETs a path with the token; the body as text. */
  Future<String> get(String path) {
    return client.get(port, "127.0.0.1", path).putHeader("authorization", "Bearer " + token).send().map(HttpResponse::bodyAsString);
  }

  Future<HttpResponse<Buffer>> post(String path, JsonObject body) {
    return client.post(port, "127.0.0.1", path).putHeader("authorization", "Bearer " + token).sendJsonObject(body);
  }

  Result run(List<String> agents, long limit, Duration budget) throws Exception {
    AtomicLong completed = new AtomicLong();
    AtomicLong empty = new AtomicLong();
    long deadline = System.nanoTime() + budget.toNanos();
    long t0 = System.nanoTime();
    List<Future<Void>> loops = new ArrayList<>();
    for (String agent : agents) {
      Promise<Void> done = Promise.promise();
      loop(agent, completed, empty, limit, deadline, done);
      loops.add(done.future());
    }
    Future.all(loops).await(budget.toSeconds() + 60, TimeUnit.SECONDS);
    return new Result(completed.get(), empty.get(), Duration.ofNanos(System.nanoTime() - t0));
  }

  private void loop(String agent, AtomicLong completed, AtomicLong empty, long limit, long deadline, Promise<Void> done) {
    if (System.nanoTime() > deadline || completed.get() >= limit) {
      done.tryComplete();
      return;
    }
    JsonObject claim = new JsonObject().put("protocolVersion", "1.0").put("agentId", agent);
    post("/api/v1/tasks/claim", claim).onComplete(ar -> {
      threads.add(Thread.currentThread().getId());
      if (ar.failed() || ar.result().statusCode() != 200) {
        done.tryFail(ar.failed() ? ar.cause() : new IllegalStateException("claim: " + ar.result().bodyAsString()));
        return;
      }
      JsonObject body = ar.result().bodyAsJsonObject();
      if (!body.getBoolean("success")) {
        empty.incrementAndGet();
        if ("no_matching_tasks".equals(body.getString("reason"))) {
          done.tryComplete();
        } else {
          vertx.setTimer(2, id -> loop(agent, completed, empty, limit, deadline, done));
        }
        return;
      }
      String task = body.getJsonObject("task").getString("id");
      JsonObject complete = new JsonObject().put("protocolVersion", "1.0").put("agentId", agent)
        .put("result", new JsonObject().put("filesCreated", List.of()).put("filesModified", List.of())
          .put("filesDeleted", List.of()).put("summary", "done"));
      post("/api/v1/tasks/" + task + "/complete", complete).onComplete(c -> {
        if (c.failed() || c.result().statusCode() != 200) {
          done.tryFail(c.failed() ? c.cause() : new IllegalStateException("complete: " + c.result().bodyAsString()));
          return;
        }
        completed.incrementAndGet();
        loop(agent, completed, empty, limit, deadline, done);
      });
    });
  }

  void close() {
    client.close();
    vertx.close();
  }
}
