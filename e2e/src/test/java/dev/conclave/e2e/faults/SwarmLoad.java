package dev.conclave.e2e.faults;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import dev.conclave.platform.testing.Await;

/**
 * Swarm traffic for a fault test, every call recorded in a {@link History} ({@link SwarmOps}):
 * creates {@code tasks} tasks, then runs {@code claimers} Jetpack agents over HTTP, each a loop of
 * CLAIM, then (every other task) ACQUIRE_LEASE on one of a few shared files with a short lease,
 * RELEASE_LEASE (every other lease; the others are released by completing the task), and COMPLETE.
 * A call that gets no answer or a 5xx is recorded as indeterminate and the claimer moves to the
 * next endpoint; a COMPLETE is then repeated (the coordinator answers a repeat from the same agent
 * as the first). Loops end when nothing is left to claim, or at {@link #stop}.
 */
public final class SwarmLoad {

  /**
   * @param files size of the shared set of files leased ({@code <prefix>/file-<i>})
   * @param leaseMs each lease's duration
   * @param holdMs time between a claim (or lease) and the task's completion
   */
  public record Settings(int tasks, int claimers, int files, long leaseMs, long holdMs, String prefix) {
    public static Settings of(int tasks, int claimers) {
      return new Settings(tasks, claimers, 3, 3000, 5, "swarm-load");
    }

    public Settings withPrefix(String p) {
      return new Settings(tasks, claimers, files, leaseMs, holdMs, p);
    }
  }

  /** What a call refused with a 4xx gives its continuation: an answer with no success. */
  private static final JsonObject REFUSED = new JsonObject().put("success", false).put("reason", "refused");

  private final Vertx vertx;
  private final WebClient web;
  private final List<SocketAddress> endpoints;
  private final String token;
  private final Settings settings;
  private final History history;
  private final List<Future<Void>> loops = new ArrayList<>();
  private volatile boolean stopping;

  private SwarmLoad(Vertx vertx, List<SocketAddress> endpoints, String token, Settings settings, History history) {
    this.vertx = vertx;
    this.web = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true).setConnectTimeout(2000),
      new PoolOptions().setHttp1MaxSize(Math.max(4, settings.claimers())));
    this.endpoints = endpoints;
    this.token = token;
    this.settings = settings;
    this.history = history;
  }

  /** Creates the tasks and registers the claimers (through {@code adminToken}'s principal), then starts the loops. */
  public static SwarmLoad start(Vertx vertx, List<SocketAddress> httpEndpoints, String adminToken, Settings settings, History history) {
    SwarmLoad load = new SwarmLoad(vertx, httpEndpoints, adminToken, settings, history);
    load.createTasks();
    for (int i = 0; i < settings.claimers(); i++) {
      load.loops.add(load.claimer(i));
    }
    return load;
  }

  private void createTasks() {
    Op create = history.invoke("loader", SwarmOps.CREATE, settings.prefix(), Map.of(SwarmOps.COUNT, Integer.toString(settings.tasks())));
    for (int from = 0; from < settings.tasks(); from += 500) {
      JsonArray tasks = new JsonArray();
      for (int i = from; i < Math.min(settings.tasks(), from + 500); i++) {
        tasks.add(new JsonObject().put("id", settings.prefix() + "-" + i).put("title", "load task " + i)
          .put("requiredSkills", new JsonArray().add(skill())));
      }
      HttpResponse<Buffer> r = Await.await(post(0, "/api/v1/tasks", new JsonObject().put("tasks", tasks)), Duration.ofSeconds(60), "load generator");
      if (r.statusCode() != 201) {
        history.fail(create, Map.of(SwarmOps.ERROR, r.statusCode() + " " + r.bodyAsString()));
        throw new IllegalStateException("creating tasks: " + r.statusCode() + " " + r.bodyAsString());
      }
    }
    history.ok(create, Map.of());
  }

  private String skill() {
    return settings.prefix().toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]", "") + "skill";
  }

  private Future<HttpResponse<Buffer>> post(int endpoint, String path, JsonObject body) {
    SocketAddress a = endpoints.get(Math.floorMod(endpoint, endpoints.size()));
    return web.post(a.port(), a.host(), path).putHeader("authorization", "Bearer " + token).timeout(10_000).sendJsonObject(body);
  }

  /** One claimer's state: its agent id, the endpoint it uses now, how many tasks it has done. */
  private final class Claimer {
    final String process;
    final String agent;
    final Promise<Void> done = Promise.promise();
    int endpoint;
    int served;

    Claimer(int i) {
      process = "claimer-" + i;
      agent = settings.prefix() + "-agent-" + i;
      endpoint = i;
    }

    /**
     * Makes one call, recording it; {@code then} gets the 200 answer's body, {@link #REFUSED} after
     * a 4xx (recorded as fail), or null after no answer or a 5xx (recorded as info; the claimer
     * switches endpoint).
     */
    void call(String f, String value, Map<String, String> data, String path, JsonObject body, Consumer<JsonObject> then) {
      Op invoke = history.invoke(process, f, value, data);
      post(endpoint, path, body.put("protocolVersion", "1.0")).onComplete(ar -> {
        if (ar.failed() || ar.result().statusCode() >= 500) {
          history.info(invoke, Map.of(SwarmOps.ERROR, ar.failed() ? String.valueOf(ar.cause()) : ar.result().statusCode() + " " + ar.result().bodyAsString()));
          endpoint++;
          vertx.setTimer(200, t -> then.accept(null));
          return;
        }
        HttpResponse<Buffer> r = ar.result();
        if (r.statusCode() != 200) {
          history.fail(invoke, Map.of(SwarmOps.ERROR, r.statusCode() + " " + r.bodyAsString()));
          long wait = r.statusCode() == 429 ? 1000L * Long.parseLong(r.getHeader("retry-after") == null ? "1" : r.getHeader("retry-after")) : 50;
          vertx.setTimer(wait, t -> then.accept(REFUSED));
          return;
        }
        JsonObject answer = r.bodyAsJsonObject();
        Map<String, String> out = new HashMap<>();
        String completedValue = value;
        switch (f) {
          case SwarmOps.CLAIM -> {
            if (answer.getBoolean("success", false)) {
              completedValue = answer.getJsonObject("task").getString("id");
            } else {
              out.put(SwarmOps.REASON, answer.getString("reason", ""));
            }
          }
          case SwarmOps.LEASE_ACQUIRE -> {
            boolean granted = answer.getBoolean("success", false);
            out.put(SwarmOps.GRANTED, Boolean.toString(granted));
            if (granted) {
              out.put(SwarmOps.EXPIRES_AT, answer.getJsonObject("lease").getString("expiresAt"));
            } else {
              out.put(SwarmOps.HELD_BY, answer.getString("heldBy", ""));
              out.put(SwarmOps.HELD_UNTIL, answer.getString("heldUntil", ""));
            }
          }
          case SwarmOps.LEASE_RELEASE -> out.put(SwarmOps.RELEASED, String.valueOf(answer.getBoolean("released")));
          default -> {
          }
        }
        history.complete(invoke, Op.Type.OK, completedValue, out);
        then.accept(answer);
      });
    }
  }

  private Future<Void> claimer(int i) {
    Claimer c = new Claimer(i);
    register(c);
    return c.done.future();
  }

  private void register(Claimer c) {
    JsonObject agent = new JsonObject().put("id", c.agent).put("name", c.agent).put("type", "custom")
      .put("capabilities", new JsonObject().put("skills", new JsonArray().add(skill())));
    c.call(SwarmOps.REGISTER, c.agent, Map.of(SwarmOps.AGENT, c.agent), "/api/v1/agents/register",
      new JsonObject().put("operation", "REGISTER").put("agent", agent), answer -> {
        if (answer == null && !stopping) {
          register(c);
        } else {
          claim(c);
        }
      });
  }

  private void claim(Claimer c) {
    if (stopping) {
      c.done.tryComplete();
      return;
    }
    c.call(SwarmOps.CLAIM, "", Map.of(SwarmOps.AGENT, c.agent), "/api/v1/tasks/claim", new JsonObject().put("agentId", c.agent), answer -> {
      if (answer == null) {
        claim(c);
      } else if (!answer.getBoolean("success", false)) {
        if ("no_matching_tasks".equals(answer.getString("reason"))) {
          c.done.tryComplete();
        } else {
          vertx.setTimer(100, t -> claim(c));
        }
      } else {
        String task = answer.getJsonObject("task").getString("id");
        c.served++;
        if (c.served % 2 == 0) {
          lease(c, task);
        } else {
          vertx.setTimer(settings.holdMs(), t -> complete(c, task));
        }
      }
    });
  }

  private void lease(Claimer c, String task) {
    String file = settings.prefix() + "/file-" + Math.floorMod(task.hashCode(), settings.files());
    Map<String, String> data = Map.of(SwarmOps.AGENT, c.agent, SwarmOps.TASK, task);
    c.call(SwarmOps.LEASE_ACQUIRE, file, data, "/api/v1/leases/acquire", new JsonObject().put("agentId", c.agent).put("taskId", task)
      .put("filePath", file).put("durationMs", settings.leaseMs()), answer -> vertx.setTimer(settings.holdMs(), t -> {
        boolean granted = answer != null && answer.getBoolean("success", false);
        if (granted && c.served % 4 == 0) {
          c.call(SwarmOps.LEASE_RELEASE, file, data, "/api/v1/leases/release", new JsonObject().put("agentId", c.agent).put("filePath", file),
            released -> complete(c, task));
        } else {
          complete(c, task);
        }
      }));
  }

  private void complete(Claimer c, String task) {
    JsonObject body = new JsonObject().put("agentId", c.agent).put("result", new JsonObject().put("filesCreated", new JsonArray())
      .put("filesModified", new JsonArray()).put("filesDeleted", new JsonArray()).put("summary", "done by " + c.agent));
    c.call(SwarmOps.COMPLETE, task, Map.of(SwarmOps.AGENT, c.agent, SwarmOps.TASK, task), "/api/v1/tasks/" + task + "/complete", body,
      answer -> {
        if (answer == null && !stopping) {
          complete(c, task);
        } else {
          claim(c);
        }
      });
  }

  /** Waits until every claimer found nothing left to claim; false if {@code timeout} passed first. */
  public boolean awaitDone(Duration timeout) {
    Future<?> all = Future.all(loops);
    try {
      all.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      if (!all.isComplete()) {
        return false;
      }
      throw new IllegalStateException("swarm load: " + e, e);
    } catch (Exception e) {
      throw new IllegalStateException("swarm load: " + e, e);
    }
  }

  /** Lets each claimer finish the call it is in (at most {@code grace}), then closes the HTTP client. */
  public void stop(Duration grace) {
    stopping = true;
    awaitDone(grace);
    web.close();
  }
}
