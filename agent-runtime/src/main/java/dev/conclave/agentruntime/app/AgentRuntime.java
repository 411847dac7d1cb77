package dev.conclave.agentruntime.app;

import dev.conclave.agent.AgentClient;
import dev.conclave.agent.AgentEnvironment;
import dev.conclave.agent.ConnectionListener;
import dev.conclave.agent.Disconnect;
import dev.conclave.agent.Session;
import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.backend.InjectionQueue;
import dev.conclave.agentruntime.backend.RuntimeHandler;
import dev.conclave.agentruntime.cli.RuntimeConfig;
import dev.conclave.agentruntime.env.GitProbe;
import dev.conclave.agentruntime.gate.PlanMode;
import dev.conclave.agentruntime.gate.ToolGate;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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

  private AgentRuntime() {
  }

  /**
   * Runs the agent. Blocks until {@code stop} completes or the client stops by itself.
   *
   * @param env the process environment (the API key variable, secrets for child processes)
   * @param stop completed to stop, for example by a signal handler
   */
  public static int run(RuntimeConfig config, Map<String, String> env, PrintStream out, CompletableFuture<String> stop) {
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
      AgentClient client = AgentClient.builder(vertx)
        .endpoints(config.endpoints())
        .token(config.token())
        .agentId(config.agentId())
        .name(config.name())
        .capabilities(config.capabilities().toArray(String[]::new))
        .features(config.backend().features())
        .environment(environment)
        .handler(new RuntimeHandler(new BackendHandler(vertx, backend), injections))
        .listener(new Reporter(out))
        .build();
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

  /** Prints registrations for scripts and logs connection changes. */
  private static final class Reporter implements ConnectionListener {
    private final PrintStream out;

    Reporter(PrintStream out) {
      this.out = out;
    }

    @Override
    public void onRegistered(Session session, boolean reconnect) {
      out.println("conclave-agent: registered agent=" + session.agentId() + " server=" + session.serverId()
        + " endpoint=" + session.endpoint() + " instance=" + session.instanceId() + " tools=" + session.availableTools().size()
        + " reconnect=" + reconnect);
    }

    @Override
    public void onDisconnected(Disconnect disconnect) {
      LOG.info("disconnected {}", disconnect);
    }
  }
}
