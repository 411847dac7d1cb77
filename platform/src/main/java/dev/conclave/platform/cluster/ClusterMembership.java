package dev.conclave.platform.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Who is in the cluster: this node's member id, the current members, and notice of members that
 * leave. A single node (no cluster manager) is a cluster of one whose member id is
 * {@link #STANDALONE}; callers never need to ask which case they are in. This is the only place that
 * reaches into Vert.x's cluster manager.
 */
public final class ClusterMembership {

  /** Where vertx-hazelcast keeps a member's Vert.x node id (HazelcastClusterManager.NODE_ID_ATTRIBUTE). */
  static final String VERTX_NODE_ID_ATTRIBUTE = "__vertx.nodeId";

  /** The member id of a node that runs without a cluster manager. */
  public static final String STANDALONE = "standalone";

  private record Listener(Context context, Handler<String> handler) {
  }

  private final Vertx vertx;
  private final HazelcastClusterManager manager;
  private final List<Listener> leaveListeners = new CopyOnWriteArrayList<>();
  private final List<Listener> joinListeners = new CopyOnWriteArrayList<>();

  private ClusterMembership(Vertx vertx, HazelcastClusterManager manager) {
    this.vertx = vertx;
    this.manager = manager;
    if (manager != null) {
      manager.getHazelcastInstance().getCluster().addMembershipListener(new MembershipListener() {
        @Override
        public void memberAdded(MembershipEvent event) {
          // newcomers announce themselves in the shared maps; a member that comes back after a
          // partition healed is a join too, and those who listen re-assert what they hold
          String member = event.getMember().getAttribute(VERTX_NODE_ID_ATTRIBUTE);
          if (member != null) {
            joinListeners.forEach(l -> l.context().runOnContext(v -> l.handler().handle(member)));
          }
        }

        @Override
        public void memberRemoved(MembershipEvent event) {
          // Vert.x names members by its own id, kept in this Hazelcast member attribute (not the Hazelcast uuid)
          String member = event.getMember().getAttribute(VERTX_NODE_ID_ATTRIBUTE);
          if (member != null) {
            leaveListeners.forEach(l -> l.context().runOnContext(v -> l.handler().handle(member)));
          }
        }
      });
    }
  }

  /** The membership view of {@code vertx}, clustered or not. */
  public static ClusterMembership of(Vertx vertx) {
    if (vertx.isClustered() && ((VertxInternal) vertx).clusterManager() instanceof HazelcastClusterManager hz) {
      return new ClusterMembership(vertx, hz);
    }
    return new ClusterMembership(vertx, null);
  }

  /** This node's member id (the Vert.x cluster node id). */
  public String localMember() {
    return manager == null ? STANDALONE : manager.getNodeId();
  }

  /** The members now, this node included. */
  public Set<String> members() {
    return manager == null ? Set.of(STANDALONE) : new HashSet<>(manager.getNodes());
  }

  public boolean isMember(String memberId) {
    return manager == null ? STANDALONE.equals(memberId) : manager.getNodes().contains(memberId);
  }

  /**
   * Calls {@code handler} with the id of every member that leaves from now on, on the context that
   * registered it (or an event loop when registered outside one).
   */
  public void onLeave(Handler<String> handler) {
    leaveListeners.add(new Listener(listenerContext(), handler));
  }

  /**
   * Calls {@code handler} with the id of every member that joins from now on (a new node, or one
   * back after a partition healed and the clusters merged), on the context that registered it.
   */
  public void onJoin(Handler<String> handler) {
    joinListeners.add(new Listener(listenerContext(), handler));
  }

  private Context listenerContext() {
    return Vertx.currentContext() != null ? Vertx.currentContext() : vertx.getOrCreateContext();
  }
}
