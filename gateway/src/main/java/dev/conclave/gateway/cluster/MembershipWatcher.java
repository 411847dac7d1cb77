package dev.conclave.gateway.cluster;

import dev.conclave.gateway.mailbox.Terminations;
import io.vertx.core.Future;
import dev.conclave.gateway.presence.NodeRegistry;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Notices gateway nodes that left the cluster (crashed, killed, partitioned away) and cleans up
 * after them: their agents' presence entries go, and their in-flight requests end with a
 * recoverable error. Queued requests stay queued for the agents' next connection. Every survivor
 * does this; every step is idempotent, so it does not matter how many do.
 *
 * <p>A clean-up can take seconds while the cluster repartitions, and the node may be back before it
 * ends (a partition healed and the clusters merged): the node then re-asserts its agents' presence,
 * and a clean-up still releasing them would undo that until its next re-assertion. So every step
 * first asks whether the node is a member again, and stops cleaning up if it is.
 */
public final class MembershipWatcher {

  private static final Logger LOG = LoggerFactory.getLogger(MembershipWatcher.class);

  private final String nodeId;
  private final Supplier<Set<String>> members;
  private final NodeRegistry nodes;
  private final Presence presence;
  private final Terminations terminations;
  private final Set<String> cleaning = new HashSet<>();
  /** Nodes missing from the members at the previous check: gone only if still missing now. */
  private Set<String> missingBefore = new HashSet<>();

  /** {@code members}: the cluster's members now (ClusterMembership::members), by the member ids the registry holds. */
  public MembershipWatcher(String nodeId, Supplier<Set<String>> members, NodeRegistry nodes, Presence presence, Terminations terminations) {
    this.nodeId = nodeId;
    this.members = members;
    this.nodes = nodes;
    this.presence = presence;
    this.terminations = terminations;
  }

  /** One pass: compares the registry of gateway nodes with the cluster's members. */
  public Future<Void> check() {
    return nodes.entries().compose(entries -> {
      // members are read after the registry: a node registers only once it is a member, so a node
      // that joined meanwhile is never mistaken for one that left
      Set<String> members = this.members.get();
      Set<String> missing = new HashSet<>();
      Future<Void> all = Future.succeededFuture();
      for (var e : entries.entrySet()) {
        String node = e.getKey();
        if (node.equals(nodeId) || members.contains(e.getValue())) {
          continue;
        }
        missing.add(node);
        if (missingBefore.contains(node) && cleaning.add(node)) {
          String member = e.getValue();
          all = all.compose(v -> cleanUp(node, member).onComplete(ar -> cleaning.remove(node)));
        }
      }
      missingBefore = missing;
      return all;
    });
  }

  private Future<Void> cleanUp(String gone, String member) {
    LOG.warn("cluster: gateway node left node={}; releasing its agents and ending its in-flight requests", gone);
    return presence.all().compose(entries -> {
      List<PresenceEntry> orphans = entries.stream().filter(p -> p.node().equals(gone)).toList();
      return Future.join(orphans.stream().map(p -> back(member) ? Future.succeededFuture(false) : presence.release(p)).toList())
        .map(orphans.size());
    }).compose(released -> {
      if (back(member)) {
        LOG.warn("cluster: gateway node is back before its clean-up finished node={}; its agents, requests and registry entry stay", gone);
        return Future.succeededFuture();
      }
      return terminations.nodeLost(gone).compose(ended -> {
        LOG.warn("cluster: cleaned up after node={} agents-released={} requests-ended={}", gone, released, ended);
        return back(member) ? Future.succeededFuture() : nodes.leave(gone);
      });
    });
  }

  private boolean back(String member) {
    return members.get().contains(member);
  }
}
