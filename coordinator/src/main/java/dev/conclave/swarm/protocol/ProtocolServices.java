package dev.conclave.swarm.protocol;

import dev.conclave.swarm.config.SwarmSettings;
import dev.conclave.swarm.metrics.SwarmMetrics;
import dev.conclave.swarm.security.AgentSecrets;
import dev.conclave.swarm.store.ProtocolStore;
import dev.conclave.swarm.tracing.ClaimSpans;
import io.vertx.core.Context;
import io.vertx.core.json.JsonArray;

import java.time.Clock;
import java.util.function.Consumer;

/**
 * Makes the protocol service of one event loop: each transport instance (an HTTP edge instance, the
 * file transport) gets its own request batcher, confined to its context, over the shared store.
 */
public final class ProtocolServices {

  private final ProtocolStore store;
  private final Clock clock;
  private final SwarmSettings settings;
  private final SwarmMetrics metrics;
  private final Consumer<JsonArray> events;
  private final AgentSecrets secrets;
  private final ClaimSpans claims;

  /**
   * {@code events}: where the events a batch captured go (published after its commit); {@code claims}:
   * the spans of claims that got a task.
   */
  public ProtocolServices(ProtocolStore store, Clock clock, SwarmSettings settings, SwarmMetrics metrics,
                          Consumer<JsonArray> events, AgentSecrets secrets, ClaimSpans claims) {
    this.claims = claims;
    this.store = store;
    this.clock = clock;
    this.settings = settings;
    this.metrics = metrics;
    this.events = events;
    this.secrets = secrets;
  }

  /** The service whose batches run on {@code context}. */
  public ProtocolService on(Context context) {
    DispatchBatcher batcher = new DispatchBatcher(context, store, clock, settings.batchMax(), settings.batchInFlight(),
      settings.queueMax(), metrics, events);
    return new ProtocolService(batcher, secrets, metrics, claims);
  }
}
