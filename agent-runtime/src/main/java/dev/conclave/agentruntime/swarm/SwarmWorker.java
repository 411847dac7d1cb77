package dev.conclave.agentruntime.swarm;

import dev.conclave.agentruntime.gate.WriteGuard;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The agent program as a swarm agent: the agent side of the Jetpack protocol (the spec's "Agent
 * Implementation" checklist) with the agent's gateway identity. Once the agent has registered with the
 * gateway it registers with the coordinator (same agent id, same token, its skills and limits),
 * heartbeats (every 30 s idle, 10 s with a task) and obeys what the heartbeat brings back (SHUTDOWN:
 * the program stops; RELEASE_TASK: the task is given back with FAIL; PING: a heartbeat at once).
 * While idle, and connected to the gateway, it claims; with nothing eligible it waits 1 s, 2 s, 4 s
 * … up to {@code --claim-wait}, each wait between half and all of that (jitter). A claimed task is
 * a {@link TaskRun}. A stop lets the task in hand finish for a few seconds, then releases it.
 *
 * <p>Its state changes on one Vert.x context; {@link #current} may be read from any thread.
 */
public final class SwarmWorker {

  private static final Logger LOG = LoggerFactory.getLogger(SwarmWorker.class);
  static final Duration REGISTER_RETRY = Duration.ofSeconds(15);
  static final long FIRST_CLAIM_WAIT_MS = 1_000;

  private final Vertx vertx;
  private final Context context;
  private final SwarmConfig config;
  private final String agentId;
  private final String name;
  private final String token;
  private final Path workdir;
  private final BooleanSupplier gatewayConnected;
  private final Consumer<String> shutdown;
  private final PrintStream out;
  private final Clock clock;
  private final Promise<Void> stopped = Promise.promise();
  private SwarmClient client;
  private volatile TaskRun run;
  private boolean started;
  private boolean registered;
  private boolean stopping;
  private int idleClaims;
  private int completed;
  private long claimTimer = -1;
  private long heartbeatTimer = -1;

  /**
   * @param gatewayConnected whether the agent holds a gateway session now (tasks are claimed only then)
   * @param shutdown asks the program to stop (a SHUTDOWN command), with the reason
   */
  public SwarmWorker(Vertx vertx, SwarmConfig config, String agentId, String name, String token, Path workdir,
                     BooleanSupplier gatewayConnected, Consumer<String> shutdown, PrintStream out, Clock clock) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.config = config;
    this.agentId = agentId;
    this.name = name;
    this.token = token;
    this.workdir = workdir;
    this.gatewayConnected = gatewayConnected;
    this.shutdown = shutdown;
    this.out = out;
    this.clock = clock;
  }

  /** The tool gate's guard: the task's file leases. */
  public WriteGuard leaseGuard() {
    return new LeaseGuard(this, workdir, config.leaseWait());
  }

  /** The task in hand, or null. */
  TaskRun current() {
    return run;
  }

  /**
   * The agent registered with the gateway; the first time, the worker starts. {@code announcedHttp}
   * is the node's HTTP address as its Welcome announces it (the MCP endpoint), used without
   * {@code --swarm-url}.
   */
  public void gatewayRegistered(String announcedHttp) {
    context.runOnContext(v -> {
      if (started || stopping) {
        claimSoon(0);
        return;
      }
      if (config.url().isEmpty() && (announcedHttp == null || !announcedHttp.startsWith("http"))) {
        out.println("conclave-agent: swarm: the node announced no HTTP address; set --swarm-url to reach the coordinator");
        return;
      }
      started = true;
      URI url = config.url().orElseGet(() -> URI.create(announcedHttp.replaceAll("/mcp/?$", "")));
      client = new SwarmClient(vertx, url, token);
      out.println("conclave-agent: swarm coordinator=" + client.base() + " skills=" + String.join(",", config.skills()));
      register();
    });
  }

  /**
   * Stops working the swarm: no more claims; the task in hand gets {@code config.stopGrace()} to
   * finish, then is released (FAIL, recoverable) and its leases with it; heartbeats stop.
   */
  public Future<Void> stop(String reason) {
    context.runOnContext(v -> {
      if (stopping) {
        return;
      }
      stopping = true;
      cancelTimer(claimTimer);
      TaskRun r = run;
      Future<Void> task = r == null ? Future.succeededFuture()
        : Future.any(r.ended(), vertx.timer(Math.max(1, config.stopGrace().toMillis()))).transform(ar -> {
          r.stop(TaskEnding.Stop.SHUTDOWN, reason);
          return r.ended();
        });
      task.onComplete(ar -> {
        cancelTimer(heartbeatTimer);
        (client == null ? Future.<Void>succeededFuture() : client.close()).onComplete(x -> stopped.tryComplete());
      });
    });
    return stopped.future();
  }

  // ---- registration and heartbeats ----------------------------------------------------------

  private void register() {
    if (stopping) {
      return;
    }
    JsonObject agent = Registration.agent(config, agentId, name);
    client.register(agent).onComplete(ar -> {
      if (stopping) {
        return;
      }
      if (ar.succeeded()) {
        registered = true;
        LOG.info("swarm registered agent={} skills={}", agentId, config.skills());
        out.println("conclave-agent: swarm registered agent=" + agentId);
        heartbeatSoon(0);
        claimSoon(0);
        return;
      }
      SwarmCallException e = (SwarmCallException) ar.cause();
      if (e.code().equals("agent_already_registered")) {
        LOG.info("swarm: agent {} is still registered from an earlier run; registering again once that run counts as stale"
          + " (2 minutes after its last heartbeat)", agentId);
      } else if (!e.transientFailure()) {
        LOG.error("swarm: the coordinator refused the registration of agent {}: {} {}; retrying in {} s", agentId, e.code(),
          e.getMessage(), REGISTER_RETRY.toSeconds());
      }
      vertx.setTimer(jitter(REGISTER_RETRY.toMillis()), t -> register());
    });
  }

  private void heartbeatSoon(long delayMs) {
    cancelTimer(heartbeatTimer);
    heartbeatTimer = vertx.setTimer(Math.max(1, delayMs), t -> {
      heartbeatTimer = -1;
      heartbeat();
    });
  }

  private void heartbeat() {
    if (stopping || !registered) {
      return;
    }
    TaskRun r = run;
    JsonObject body = new JsonObject().put("status", r == null ? "idle" : "busy")
      .put("metrics", Registration.metrics(completed));
    if (r != null) {
      body.put("currentTask", r.current());
      r.leases().renew();
    }
    client.heartbeat(agentId, body).onComplete(ar -> {
      if (stopping) {
        return;
      }
      heartbeatSoon((run == null ? config.idleHeartbeat() : config.busyHeartbeat()).toMillis());
      if (ar.succeeded()) {
        commands(ar.result().getJsonArray("commands", new JsonArray()));
      } else if (ar.cause() instanceof SwarmCallException e && e.code().equals("agent_not_registered")) {
        // marked offline (heartbeats missed for 2 minutes): its task was failed as a crash; start over
        LOG.warn("swarm: agent {} was marked offline; registering again", agentId);
        registered = false;
        TaskRun lost = run;
        if (lost != null) {
          lost.stop(TaskEnding.Stop.TAKEN_AWAY, "the agent was marked offline");
        }
        register();
      }
    });
  }

  private void commands(JsonArray commands) {
    for (Object o : commands) {
      JsonObject c = o instanceof JsonObject j ? j : new JsonObject();
      String type = c.getString("type", "");
      LOG.info("swarm command agent={} command={}", agentId, c);
      switch (type) {
        case "SHUTDOWN" -> shutdown.accept("SHUTDOWN from the coordinator: " + c.getString("reason", "no reason given"));
        case "RELEASE_TASK" -> {
          TaskRun r = run;
          if (r != null && r.taskId().equals(c.getString("taskId"))) {
            r.stop(TaskEnding.Stop.RELEASE, c.getString("reason", "RELEASE_TASK from the coordinator"));
          } else {
            LOG.info("swarm: RELEASE_TASK for task {}, which this agent does not hold", c.getString("taskId"));
          }
        }
        case "PING" -> heartbeatSoon(0);
        default -> LOG.warn("swarm: unknown command {}", c);
      }
    }
  }

  // ---- claiming ----------------------------------------------------------------------------

  private void claimSoon(long delayMs) {
    if (stopping || run != null) {
      return;
    }
    cancelTimer(claimTimer);
    claimTimer = vertx.setTimer(Math.max(1, delayMs), t -> {
      claimTimer = -1;
      claim();
    });
  }

  private void claim() {
    if (stopping || !registered || run != null) {
      return;
    }
    if (!gatewayConnected.getAsBoolean()) {
      claimSoon(idleWait());
      return;
    }
    client.claim(agentId).onComplete(ar -> {
      if (stopping || run != null) {
        return;
      }
      if (ar.succeeded() && ar.result().getBoolean("success", false)) {
        idleClaims = 0;
        work(ar.result().getJsonObject("task"));
        return;
      }
      long wait = idleWait();
      if (ar.failed() && ar.cause() instanceof SwarmCallException e && e.retryAfter().isPresent()) {
        wait = Math.max(wait, e.retryAfter().get().toMillis());
      }
      claimSoon(wait);
    });
  }

  private void work(JsonObject task) {
    TaskRun r = new TaskRun(vertx, client, config, agentId, workdir, task, clock);
    run = r;
    heartbeatSoon(0);
    r.start();
    r.ended().onComplete(ar -> context.runOnContext(v -> {
      run = null;
      completed++;
      if (!stopping) {
        heartbeatSoon(0);
        claimSoon(0);
      }
    }));
  }

  /** 1 s, 2 s, 4 s … up to {@code --claim-wait}, each between half and all of it. */
  private long idleWait() {
    long wait = Math.min(config.claimWait().toMillis(), FIRST_CLAIM_WAIT_MS << Math.min(idleClaims, 20));
    idleClaims++;
    return jitter(wait);
  }

  private static long jitter(long ms) {
    return Math.max(1, ms / 2 + ThreadLocalRandom.current().nextLong(ms / 2 + 1));
  }

  private void cancelTimer(long id) {
    if (id >= 0) {
      vertx.cancelTimer(id);
    }
  }
}
