package dev.conclave.agent.client;

import dev.conclave.agent.AgentSdkException;
import dev.conclave.agent.ClientStoppedException;
import dev.conclave.agent.internal.pack.PackConfig;
import dev.conclave.agent.internal.pack.PackSupervisor;
import dev.conclave.agent.pack.PackRegistration;
import dev.conclave.agent.pack.PackStatusException;
import dev.conclave.agent.pack.PackSupersededException;
import dev.conclave.agent.pack.PackTool;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.Optional;

/**
 * A tool pack's connection to Conclave's {@code coven.PackService}: registers the pack's manifest,
 * runs its tools when agents call them and sends their results back.
 *
 * <pre>{@code
 * PackClient pack = PackClient.builder(vertx)
 *     .endpoints("gw-1:50051", "gw-2:50051")
 *     .token(packToken)
 *     .packId("weather").version("1.0.0")
 *     .tool(PackTool.builder("get_weather").handler(call -> …).build())
 *     .build();
 * pack.start().onSuccess(reg -> System.out.println("live: " + reg.liveTools()));
 * }</pre>
 *
 * <p>After {@link #start()} the client stays registered until {@link #close()}: when the stream
 * ends it reconnects with backoff, rotating across the endpoints, and registers the same manifest
 * again. Permanent refusals and being superseded stop it. Its state lives on an event loop of its
 * own (a verticle it deploys on {@code vertx}); every method may be called from any thread.
 */
public final class PackClient {

  private final PackConfig config;
  private final PackSupervisor supervisor;
  private Future<String> deployment;
  private boolean closeRequested;

  PackClient(PackConfig config) {
    this.config = config;
    this.supervisor = new PackSupervisor(config);
  }

  public static PackClientBuilder builder(Vertx vertx) {
    return new PackClientBuilder(vertx);
  }

  /**
   * Connects and registers. Completes with the first registration; fails with a permanent
   * {@link PackStatusException} when the gateway refuses the pack for good, or with
   * {@link ClientStoppedException} when {@link #close()} comes first. Unreachable gateways are retried
   * and do not fail it. Calling it again returns the same future.
   */
  public Future<PackRegistration> start() {
    synchronized (this) {
      if (deployment == null && !closeRequested) {
        deployment = config.vertx().deployVerticle(supervisor);
        deployment.onFailure(err -> supervisor.abandon(new AgentSdkException("the pack client could not start", err)));
      }
    }
    return supervisor.registered();
  }

  /**
   * Stops for good: ends the stream, stops reconnecting, drops the results of calls still running
   * (the gateway times them out), waits up to {@code closeGrace} for results already being
   * delivered. Completes when done; never fails.
   */
  public Future<Void> close() {
    Future<String> d;
    synchronized (this) {
      closeRequested = true;
      d = deployment;
    }
    if (d == null) {
      supervisor.abandon(null);
    } else {
      // fails harmlessly when the client already stopped by itself
      d.compose(id -> config.vertx().undeploy(id));
    }
    return supervisor.closed().otherwiseEmpty();
  }

  /**
   * Completes when the client stopped: successfully after {@link #close()}, with the cause when a
   * permanent failure stopped it ({@link PackSupersededException}, a refused token, …).
   */
  public Future<Void> closed() {
    return supervisor.closed();
  }

  /** The current registration, while the pack is registered. */
  public Optional<PackRegistration> registration() {
    return supervisor.registration();
  }

  public String packId() {
    return config.packId();
  }
}
