package dev.conclave.gateway.app;

import dev.conclave.gateway.api.GatewayToolsEndpoint;
import dev.conclave.gateway.cluster.MembershipWatcher;
import dev.conclave.gateway.cluster.PresenceReconciler;
import dev.conclave.gateway.cluster.StrandedRequestSweep;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.presence.NodeRegistry;
import dev.conclave.gateway.sessions.NodeCommandHandler;
import dev.conclave.gateway.streaming.Followers;
import dev.conclave.platform.cluster.ClusterMembership;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's node-level duties: receive commands for the agents held here, register this node,
 * end requests orphaned by nodes that are gone (at start and whenever a member leaves), and keep
 * the presence directory true.
 */
final class GatewayVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayVerticle.class);
  static final long MEMBERSHIP_CHECK_MS = 2_000;
  static final long RECONCILE_MS = 10_000;
  static final long AFTER_JOIN_MS = 2_000;
  /** The live followers' re-subscriptions after a join are spread over this long, not all at once. */
  static final long RESUBSCRIBE_SPREAD_MS = 3_000;

  private final String nodeId;
  private final ClusterMembership membership;
  private final NodeCommandHandler commands;
  private final GatewayToolsEndpoint tools;
  private final NodeRegistry nodes;
  private final Terminations terminations;
  private final MembershipWatcher watcher;
  private final PresenceReconciler reconciler;
  private final StrandedRequestSweep stranded;
  private final Followers followers;
  private MessageConsumer<JsonObject> consumer;
  private MessageConsumer<JsonObject> toolsConsumer;

  GatewayVerticle(String nodeId, ClusterMembership membership, NodeCommandHandler commands, GatewayToolsEndpoint tools, NodeRegistry nodes,
                  Terminations terminations, MembershipWatcher watcher, PresenceReconciler reconciler, StrandedRequestSweep stranded,
                  Followers followers) {
    this.nodeId = nodeId;
    this.membership = membership;
    this.commands = commands;
    this.tools = tools;
    this.nodes = nodes;
    this.terminations = terminations;
    this.watcher = watcher;
    this.reconciler = reconciler;
    this.stranded = stranded;
    this.followers = followers;
  }

  @Override
  public Future<?> start() {
    toolsConsumer = tools.register(vertx);
    return commands.register(vertx, nodeId)
      .onSuccess(c -> consumer = c)
      .compose(c -> toolsConsumer.completion())
      .compose(c -> watcher.check())
      .compose(v -> nodes.join(nodeId, membership.localMember()))
      .compose(v -> nodes.live())
      .compose(terminations::orphaned)
      .onSuccess(ended -> {
        if (ended > 0) {
          LOG.info("role gateway: ended {} requests left in flight by nodes that are gone", ended);
        }
        vertx.setPeriodic(MEMBERSHIP_CHECK_MS, t -> watcher.check()
          .onFailure(err -> LOG.warn("cluster: membership check failed error={}", err.getMessage())));
        vertx.setPeriodic(RECONCILE_MS, t -> {
          reassert();
          stranded.sweep();
        });
        // a member joining may be the other side of a healed partition, whose merged maps lack what
        // this node holds: re-assert soon, once the merge has settled, not only at the next period;
        // the merged subscription map may lack this node's live followers too: they subscribe again
        membership.onJoin(member -> vertx.setTimer(AFTER_JOIN_MS, t -> {
          reassert();
          resubscribeFollowers();
        }));
      });
  }

  private void resubscribeFollowers() {
    java.util.List<Runnable> all = followers.resubscribers();
    java.util.Random random = new java.util.Random();
    for (Runnable resubscribe : all) {
      vertx.setTimer(1 + random.nextInt((int) RESUBSCRIBE_SPREAD_MS), t -> resubscribe.run());
    }
    if (!all.isEmpty()) {
      LOG.info("cluster: a member joined; {} live followers subscribe again and read what they may have missed", all.size());
    }
  }

  /** This node's registry entry and its agents' presence entries, put back where they are missing or wrong. */
  private void reassert() {
    nodes.reassert(nodeId, membership.localMember())
      .onSuccess(put -> {
        if (put) {
          LOG.warn("cluster: this gateway node was missing from the registry (removed while it could not be heard); registered again");
        }
      })
      .onFailure(err -> LOG.warn("cluster: re-registering this gateway node failed error={}", err.getMessage()));
    reconciler.reconcile().onFailure(err -> LOG.warn("presence: reconciliation failed error={}", err.getMessage()));
  }

  @Override
  public Future<?> stop() {
    return Future.join(consumer == null ? Future.succeededFuture() : consumer.unregister(), toolsConsumer.unregister(), nodes.leave(nodeId));
  }
}
