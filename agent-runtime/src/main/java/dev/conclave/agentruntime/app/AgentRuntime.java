package dev.conclave.agentruntime.app;

import dev.conclave.agent.AgentEnvironment;
import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.ConnectionListener;
import dev.conclave.agent.Disconnect;
import dev.conclave.agent.Session;
import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agent.client.AgentClient;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.InjectionQueue;
import dev.conclave.agentruntime.backend.RuntimeHandler;
import dev.conclave.agentruntime.config.RuntimeConfig;
import dev.conclave.agentruntime.env.GitProbe;
import dev.conclave.agentruntime.gate.PlanMode;
import dev.conclave.agentruntime.gate.ToolGate;
import dev.conclave.agentruntime.swarm.SwarmConfig;
import dev.conclave.agentruntime.swarm.SwarmHandler;
import dev.conclave.agentruntime.swarm.SwarmWorker;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The agent program's composition root: builds the backend, the tool gate and the SDK client from a
 * {@link RuntimeConfig}, runs until it is told to stop (SIGTERM, SIGINT) or the gateway refuses the
 * agent for good, and returns the exit code: 0 after a requested stop, 1 after a refusal.
 *
 * <p>It prints one line per registration to {@code out} ({@code conclave-agent: registered …}) so
 * scripts can wait for it; logs go to standard error.
 */
public final class AgentRuntime {

  private static final Logger LOG = LoggerFactory.getLogger(AgentRuntime.class);
  /** A cancelled child process gets this long after SIGTERM; with the SDK's own steps it stays within 2 s. */
  static final Duration CANCEL_GRACE = Duration.ofMillis(1500);
  /** How long a stop waits for the request in flight to end. */
  static final Duration STOP_LIMIT = Duration.ofSeconds(10);
  /** How long a stop waits for the swarm task in hand to finish or be released (within StopOnExit's limit). */
  static final Duration SWARM_STOP_LIMIT = Duration.ofSeconds(12);

  private AgentRuntime() {
  }

  /**
   * Runs the agent. Blocks until {@code stop} completes or the client stops by itself.
   *
   * @param env the process environment (the API key variable, secrets for child processes)
   * @param stop completed to stop, for example by a signal handler
   */
  public static int run(RuntimeConfig config, Map<String, String> env, PrintStream out, CompletableFuture<String> stop) {
    return run(config, Optional.empty(), env, out, stop);
  }

  /**
   * Runs the agent, and with {@code swarm} also as a swarm agent (docs/swarm-agents.md): a SHUTDOWN
   * command from the coordinator completes {@code stop}; a stop first finishes or releases the task in hand.
   */
  public static int run(RuntimeConfig config, Optional<SwarmConfig> swarm, Map<String, String> env, PrintStream out,
                        CompletableFuture<String> stop) {
    AgentEnvironment environment = AgentEnvironment.detect()
      .withWorkingDirectory(config.workdir().toString())
      .withWorkspaces(config.workspaces())
      .withBackend(config.backend().cliName());
    environment = GitProbe.probe(config.workdir()).map(environment::withGit).orElse(environment);

    Vertx vertx = Vertx.vertx();
    try {
      InjectionQueue injections = new InjectionQueue(32);
      ClientPackTools packTools = new ClientPackTools();
      ToolGate gate = new ToolGate(vertx, config.policy(), config.workdir(), config.approvalTimeout());
      BackendContext context = new BackendContext(vertx, config.workdir(), gate,
        PlanMode.systemPrompt(config.systemPrompt(), config.policy().mode()), packTools, injections, CANCEL_GRACE);
      AgentBackend backend = Backends.create(config, context, env);
      AtomicReference<AgentClient> clientRef = new AtomicReference<>();
      SwarmWorker worker = swarm.map(s -> new SwarmWorker(vertx, s, config.agentId(), config.name(), config.token(), config.workdir(),
        () -> clientRef.get() != null && clientRef.get().session().isPresent(), stop::complete, out, Clock.systemUTC())).orElse(null);
      AgentHandler handler = new RuntimeHandler(new BackendHandler(vertx, backend), injections);
      if (worker != null) {
        gate.guard(worker.leaseGuard());
        handler = new SwarmHandler(handler, worker);
      }
      AgentClient client = AgentClient.builder(vertx)
        .endpoints(config.endpoints())
        .token(config.token())
        .agentId(config.agentId())
        .name(config.name())
        .capabilities(config.capabilities().toArray(String[]::new))
        .features(config.backend().features())
        .environment(environment)
        .handler(handler)
        .listener(new Reporter(out, worker))
        .tls(config.tls().orElse(null))
        .build();
      clientRef.set(client);
      packTools.bind(client);
      LOG.info("agent starting config={}", config);
      client.start().onFailure(err -> out.println("conclave-agent: refused: " + err.getMessage()));

      CompletableFuture<Object> either = CompletableFuture.anyOf(stop,
        client.stopped().toCompletionStage().toCompletableFuture());
      try {
        either.join();
      } catch (RuntimeException stoppedWithFailure) {
        // the client stopped by itself: reported below
      }
      if (worker != null) {
        await(worker.stop(stop.isDone() ? stop.getNow("") : "the gateway refused the agent"), SWARM_STOP_LIMIT);
      }
      if (stop.isDone()) {
        out.println("conclave-agent: stopping (" + stop.getNow("") + ")");
        await(client.stop(), STOP_LIMIT);
        out.println("conclave-agent: stopped");
        return 0;
      }
      Future<Void> stopped = client.stopped();
      if (stopped.failed()) {
        out.println("conclave-agent: stopped: " + stopped.cause().getMessage());
        return 1;
      }
      out.println("conclave-agent: stopped");
      return 0;
    } finally {
      await(vertx.close(), Duration.ofSeconds(10));
    }
  }

  private static void await(Future<?> f, Duration limit) {
    try {
      f.toCompletionStage().toCompletableFuture().get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.warn("gave up waiting error={}", e.toString());
    }
  }

  /** Prints registrations for scripts, logs connection changes, and starts the swarm worker once registered. */
  private static final class Reporter implements ConnectionListener {
    private final PrintStream out;
    private final SwarmWorker worker;

    Reporter(PrintStream out, SwarmWorker worker) {
      this.out = out;
      this.worker = worker;
    }

    @Override
    public void onRegistered(Session session, boolean reconnect) {
      out.println("conclave-agent: registered agent=" + session.agentId() + " server=" + session.serverId()
        + " endpoint=" + session.endpoint() + " instance=" + session.instanceId() + " tools=" + session.availableTools().size()
        + " reconnect=" + reconnect);
      if (worker != null) {
        worker.gatewayRegistered(session.mcpEndpoint());
      }
    }

    @Override
    public void onDisconnected(Disconnect disconnect) {
      LOG.info("disconnected {}", disconnect);
    }
  }
}
