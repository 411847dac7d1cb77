package dev.conclave.packs.app;

import dev.conclave.packs.api.PackNodeEndpoint;
import dev.conclave.packs.builtin.Builtins;
import dev.conclave.packs.registry.RegistryJanitor;
import dev.conclave.packs.registry.ToolRegistry;
import dev.conclave.packs.store.ToolCallLog;
import dev.conclave.contract.Addresses;
import dev.conclave.platform.cluster.ClusterMembership;
import dev.conclave.platform.packs.ToolCall;
import dev.conclave.platform.packs.ToolOutcome;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.Instant;

/**
 * The pack host's node-level duties: its event-bus address, the record of the gateway's tool calls, the built-in
 * tools in the registry, this node in the list of pack hosts, and the registry janitor.
 */
final class PackHostVerticle extends VerticleBase {

  static final long SWEEP_MS = 10_000;

  private final String nodeId;
  private final ClusterMembership membership;
  private final ToolRegistry registry;
  private final Builtins builtins;
  private final ToolCallLog calls;
  private final PackNodeEndpoint endpoint;
  private final RegistryJanitor janitor;
  private MessageConsumer<JsonObject> nodeConsumer;
  private MessageConsumer<JsonObject> records;

  PackHostVerticle(String nodeId, ClusterMembership membership, ToolRegistry registry, Builtins builtins, ToolCallLog calls,
                   PackNodeEndpoint endpoint) {
    this.nodeId = nodeId;
    this.membership = membership;
    this.registry = registry;
    this.builtins = builtins;
    this.calls = calls;
    this.endpoint = endpoint;
    this.janitor = new RegistryJanitor(registry);
  }

  @Override
  public Future<?> start() {
    nodeConsumer = endpoint.register(vertx);
    calls.start(vertx);
    records = vertx.eventBus().consumer(Addresses.PACK_CALL_RECORDS, this::record);
    membership.onLeave(member -> janitor.sweep("member " + member + " left"));
    vertx.setPeriodic(SWEEP_MS, t -> janitor.sweep("periodic"));
    return Future.all(nodeConsumer.completion(), records.completion())
      .compose(v -> registry.publishBuiltins(builtins.packs()))
      .compose(v -> janitor.sweep("start"))
      .compose(v -> registry.joinNode(nodeId));
  }

  @Override
  public Future<?> stop() {
    return Future.join(registry.leaveNode(nodeId), nodeConsumer.unregister(), records.unregister(), calls.flush());
  }

  /** A call of the gateway's own tools ended there: it goes in the call record like the calls that run here. */
  private void record(Message<JsonObject> msg) {
    JsonObject r = msg.body();
    calls.record(ToolCall.fromJson(r.getJsonObject("call")), r.getString("packId", ""), r.getString("node", ""),
      ToolOutcome.fromJson(r.getJsonObject("outcome")), Instant.parse(r.getString("startedAt")), Duration.ofNanos(r.getLong("tookNanos", 0L)));
  }
}
