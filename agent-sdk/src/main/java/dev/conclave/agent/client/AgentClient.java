package dev.conclave.agent.client;

import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.ClientStoppedException;
import dev.conclave.agent.ConnectionLostException;
import dev.conclave.agent.GatewayStatusException;
import dev.conclave.agent.NotConnectedException;
import dev.conclave.agent.PackToolResult;
import dev.conclave.agent.PackToolTimeoutException;
import dev.conclave.agent.RegistrationRejectedException;
import dev.conclave.agent.Session;
import dev.conclave.agent.ShutdownPolicy;
import dev.conclave.agent.internal.ClientConfig;
import dev.conclave.agent.internal.ConnectionSupervisor;
import io.vertx.core.Future;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * An agent's connection to a Coven gateway.
 *
 * <pre>{@code
 * AgentClient client = AgentClient.builder(vertx)
 *     .endpoints("gw-1:50051", "gw-2:50051")
 *     .token(token)
 *     .agentId("b7c5…").name("my-agent")
 *     .features(Feature.TOKEN_USAGE, Feature.CANCELLATION)
 *     .handler(new EchoHandler())
 *     .build();
 * client.start().onSuccess(session -> System.out.println("registered on " + session.serverId()));
 * }</pre>
 *
 * <p>After {@link #start()} the client stays connected until {@link #stop()}: it heartbeats, and
 * when the stream ends it reconnects with backoff, rotating across the endpoints and registering
 * again with the same agent id. Permanent rejections stop it. All its state lives on one Vert.x
 * event-loop context; every method may be called from any thread.
 */
public final class AgentClient {

  private final ClientConfig config;
  private final ConnectionSupervisor supervisor;

  AgentClient(ClientConfig config) {
    this.config = config;
    this.supervisor = new ConnectionSupervisor(config);
  }

  public static AgentClientBuilder builder(io.vertx.core.Vertx vertx) {
    return new AgentClientBuilder(vertx);
  }

  /**
   * Connects and registers. Completes with the first session; fails with
   * {@link RegistrationRejectedException} or a permanent {@link GatewayStatusException} when the
   * gateway refuses the agent for good, or with {@link ClientStoppedException} when {@link #stop()}
   * comes first. Transient failures (gateway down, connection reset) are retried with backoff
   * and do not fail it. Calling it again returns the same future.
   */
  public Future<Session> start() {
    return supervisor.start();
  }

  /**
   * Stops for good: no more reconnects; the request in progress is cancelled (the handler's
   * {@link AgentHandler#onCancel} runs, then {@code cancelled} is sent unless the handler ended it),
   * queued messages are answered with {@code cancelled}, the stream is closed, pending pack tool
   * calls fail with {@link ClientStoppedException} and the handler is closed. Completes when done.
   */
  public Future<Void> stop() {
    return supervisor.stop();
  }

  /**
   * Completes when the client stopped: successfully after {@link #stop()} or a gateway Shutdown
   * under {@link ShutdownPolicy#STOP}; with the cause after a permanent rejection.
   */
  public Future<Void> stopped() {
    return supervisor.stopped();
  }

  /** The current session, when the agent is registered right now. */
  public Optional<Session> session() {
    return supervisor.session();
  }

  /**
   * Runs a pack tool through the gateway ({@code ExecutePackTool}) and completes with its
   * {@code PackToolResult}, which holds either output or the tool's error. The timeout is the
   * tool's advertised timeout plus 5 s (so the gateway's own timeout report arrives first), or the
   * builder's {@code packToolTimeout} when the tool advertises none.
   *
   * <p>Fails with {@link NotConnectedException} when not registered, {@link PackToolTimeoutException}
   * when no result arrives in time, {@link ConnectionLostException} when the stream ends first.
   */
  public Future<PackToolResult> executePackTool(String toolName, String inputJson) {
    return supervisor.executePackTool(Objects.requireNonNull(toolName, "toolName"), inputJson == null ? "{}" : inputJson, null);
  }

  /** {@link #executePackTool(String, String)} with an explicit timeout. */
  public Future<PackToolResult> executePackTool(String toolName, String inputJson, Duration timeout) {
    return supervisor.executePackTool(Objects.requireNonNull(toolName, "toolName"), inputJson == null ? "{}" : inputJson,
      Objects.requireNonNull(timeout, "timeout"));
  }

  public String agentId() {
    return config.agentId();
  }
}
