package dev.conclave.platform.packs;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.cluster.ClusterMembership;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@link PackTools} over the cluster: reads the tool registry from shared data, sends each call
 * straight to the pack-host node that runs it (the gateway's own tools: to any gateway node), and
 * ends the call at once when that node leaves the cluster (a reply from a dead node would otherwise
 * only ever time out).
 */
public final class EventBusPackTools implements PackTools {

  /** Time on top of the tool's own timeout for the hop to the node and back. */
  static final Duration HOP_MARGIN = Duration.ofSeconds(5);
  /** How long a node may take to tell us that a tool does not exist. */
  static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(10);

  private record Target(String node, String member, Duration timeout) {
  }

  private final Vertx vertx;
  private final ClusterMembership membership;
  private final String localNodeId;
  private final Future<AsyncMap<String, JsonObject>> tools;
  private final Future<AsyncMap<String, JsonObject>> nodes;
  private final Map<String, Set<Promise<ToolOutcome>>> inFlightByMember = new ConcurrentHashMap<>();

  public EventBusPackTools(Vertx vertx, ClusterMembership membership, String localNodeId) {
    this.vertx = vertx;
    this.membership = membership;
    this.localNodeId = localNodeId;
    this.tools = vertx.sharedData().getAsyncMap(Addresses.PACKS_TOOLS_MAP);
    this.nodes = vertx.sharedData().getAsyncMap(Addresses.PACK_HOST_NODES_MAP);
    membership.onLeave(this::memberLeft);
  }

  @Override
  public Future<List<ToolDefinition>> available(Set<String> capabilities) {
    return tools.compose(AsyncMap::entries).compose(entries -> liveNodes().map(live -> {
      List<ToolDefinition> out = new ArrayList<>();
      for (JsonObject json : entries.values()) {
        ToolEntry entry = ToolEntry.fromJson(json);
        // the gateway's own tools are put here by the gateway, and run on any gateway node
        boolean runnable = entry.onGateway() || (entry.builtin() ? !live.isEmpty() : membership.isMember(entry.member()));
        if (runnable && ToolScope.allows(capabilities, entry.definition())) {
          out.add(entry.definition());
        }
      }
      out.sort(Comparator.comparing(ToolDefinition::getName));
      return out;
    }));
  }

  @Override
  public Future<ToolOutcome> execute(ToolCall call) {
    // the caller's span is current only now: the send happens after the lookups, in their callbacks
    Optional<String> trace = dev.conclave.platform.tracing.TraceContexts.current();
    return tools.compose(m -> m.get(call.toolName()))
      .map(json -> Optional.ofNullable(json).map(ToolEntry::fromJson))
      .compose(entry -> entry.filter(ToolEntry::onGateway).map(e -> toGateway(e, call, trace))
        .orElseGet(() -> target(entry, call).compose(target -> target.map(t -> send(t, call, trace)).orElseGet(() -> Future.succeededFuture(
          ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE, "no pack host is running in this cluster, so tool '" + call.toolName() + "' cannot run"))))))
      .recover(err -> Future.succeededFuture(err instanceof GoneException gone ? gone.outcome : ToolOutcome.failed(
        ToolOutcome.Status.UNAVAILABLE, "the tool registry is unavailable right now (" + err.getMessage() + "); retry")));
  }

  /** Where the call runs: the pack's node, or (built-ins and names nobody owns) any live pack-host node. */
  private Future<Optional<Target>> target(Optional<ToolEntry> entry, ToolCall call) {
    if (entry.isPresent() && !entry.get().builtin()) {
      ToolEntry e = entry.get();
      if (!membership.isMember(e.member())) {
        return Future.failedFuture(new GoneException(ToolOutcome.failed(ToolOutcome.Status.PACK_GONE,
          "tool '" + call.toolName() + "' is unavailable: the node holding pack '" + e.packId() + "' left the cluster")));
      }
      return Future.succeededFuture(Optional.of(new Target(e.node(), e.member(), ToolScope.timeout(e.definition()))));
    }
    Duration timeout = entry.map(e -> ToolScope.timeout(e.definition())).orElse(LOOKUP_TIMEOUT);
    return liveNodes().map(live -> {
      if (live.isEmpty()) {
        return Optional.empty();
      }
      Map.Entry<String, String> chosen = live.containsKey(localNodeId)
        ? Map.entry(localNodeId, live.get(localNodeId))
        : new ArrayList<>(live.entrySet()).get(ThreadLocalRandom.current().nextInt(live.size()));
      return Optional.of(new Target(chosen.getKey(), chosen.getValue(), timeout));
    });
  }

  private Future<ToolOutcome> send(Target target, ToolCall call, Optional<String> trace) {
    Promise<ToolOutcome> outcome = Promise.promise();
    Set<Promise<ToolOutcome>> watched = inFlightByMember.computeIfAbsent(target.member(), m -> ConcurrentHashMap.newKeySet());
    watched.add(outcome);
    if (!membership.isMember(target.member())) {
      // it left between the lookup and now: the leave notice may already have passed
      outcome.tryComplete(nodeLeft(call));
    }
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(target.timeout().plus(HOP_MARGIN).toMillis());
    vertx.eventBus().<JsonObject>request(Addresses.packHostNode(target.node()), PackNodeOps.execute(call, trace), options)
      .onComplete(ar -> outcome.tryComplete(ar.succeeded() ? ToolOutcome.fromJson(ar.result().body()) : failure(ar.cause(), call, target)));
    return outcome.future().onComplete(v -> watched.remove(outcome));
  }

  /** One of the gateway's own tools, called from elsewhere (MCP on a pack host): any gateway node runs it. */
  private Future<ToolOutcome> toGateway(ToolEntry entry, ToolCall call, Optional<String> trace) {
    Duration timeout = ToolScope.timeout(entry.definition());
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(timeout.plus(HOP_MARGIN).toMillis());
    return vertx.eventBus().<JsonObject>request(Addresses.GATEWAY_TOOL_CALLS, PackNodeOps.execute(call, trace), options)
      .map(reply -> ToolOutcome.fromJson(reply.body()))
      .recover(err -> Future.succeededFuture(err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS
        ? ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE, "no gateway is running in this cluster, so tool '" + call.toolName() + "' cannot run")
        : failure(err, call, new Target("", "", timeout))));
  }

  private static ToolOutcome failure(Throwable err, ToolCall call, Target target) {
    if (err instanceof ReplyException re && re.failureType() == ReplyFailure.TIMEOUT) {
      return ToolOutcome.failed(ToolOutcome.Status.TIMEOUT,
        "tool '" + call.toolName() + "' did not finish within " + target.timeout().toSeconds() + " s");
    }
    if (err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
      return ToolOutcome.failed(ToolOutcome.Status.PACK_GONE, "tool '" + call.toolName() + "' is unavailable: its pack host is gone");
    }
    return ToolOutcome.failed(ToolOutcome.Status.UNAVAILABLE, "tool '" + call.toolName() + "' could not run: " + err.getMessage());
  }

  private static ToolOutcome nodeLeft(ToolCall call) {
    return ToolOutcome.failed(ToolOutcome.Status.PACK_GONE,
      "tool '" + call.toolName() + "' failed: the node running it left the cluster during the call");
  }

  private void memberLeft(String member) {
    Set<Promise<ToolOutcome>> calls = inFlightByMember.remove(member);
    if (calls != null) {
      calls.forEach(p -> p.tryComplete(ToolOutcome.failed(ToolOutcome.Status.PACK_GONE,
        "the node running this tool call left the cluster during the call")));
    }
  }

  /** Live pack-host nodes: node id → member id. */
  private Future<Map<String, String>> liveNodes() {
    return nodes.compose(AsyncMap::entries).map(entries -> {
      Map<String, String> live = new java.util.HashMap<>();
      entries.forEach((node, json) -> {
        String member = json.getString("member", "");
        if (membership.isMember(member)) {
          live.put(node, member);
        }
      });
      return live;
    });
  }

  /** Carries an outcome decided before any node was asked. */
  private static final class GoneException extends RuntimeException {
    private final ToolOutcome outcome;

    GoneException(ToolOutcome outcome) {
      super(outcome.error(), null, false, false);
      this.outcome = outcome;
    }
  }
}
