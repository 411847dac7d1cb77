package dev.conclave.gateway.cluster;

import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.sessions.AgentSession;
import dev.conclave.gateway.sessions.LocalSessions;
import dev.conclave.gateway.store.AgentStore;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Makes the presence directory agree with the sessions this node really holds, periodically. After
 * a network partition heals, the merged map may name the wrong node for an agent or keep entries
 * of sessions that are gone; this repairs both. A session whose agent registered again elsewhere
 * (the database holds a newer epoch) is the stale one and is shut down.
 */
public final class PresenceReconciler {

  private static final Logger LOG = LoggerFactory.getLogger(PresenceReconciler.class);

  private final String nodeId;
  private final Presence presence;
  private final LocalSessions sessions;
  private final AgentStore agents;

  public PresenceReconciler(String nodeId, Presence presence, LocalSessions sessions, AgentStore agents) {
    this.nodeId = nodeId;
    this.presence = presence;
    this.sessions = sessions;
    this.agents = agents;
  }

  public Future<Void> reconcile() {
    List<Future<?>> work = new ArrayList<>();
    for (AgentSession session : sessions.all()) {
      if (session.epoch() < 0 || !session.isOpen()) {
        continue;
      }
      work.add(presence.get(session.agentId()).compose(current -> {
        if (current.isPresent() && current.get().node().equals(nodeId) && current.get().epoch() == session.epoch()) {
          return Future.succeededFuture();
        }
        return agents.find(session.agentId()).compose(agent -> {
          if (agent.isPresent() && agent.get().epoch() > session.epoch()) {
            LOG.warn("presence: a newer session of the agent exists elsewhere; shutting this one down agent={} epoch={}",
              session.agentId(), session.epoch());
            session.supersededElsewhere();
            return Future.succeededFuture();
          }
          LOG.warn("presence: re-asserting this node's session agent={} epoch={} (was {})", session.agentId(), session.epoch(),
            current.map(c -> c.node() + "/" + c.epoch()).orElse("absent"));
          return session.presence().map(presence::claim).orElse(Future.succeededFuture()).mapEmpty();
        });
      }));
    }
    work.add(presence.all().compose(entries -> Future.join(entries.stream()
      .filter(e -> e.node().equals(nodeId))
      .filter(e -> sessions.get(e.agentId()).filter(s -> s.epoch() == e.epoch()).isEmpty())
      .map(e -> {
        LOG.info("presence: removing an entry for a session this node no longer holds agent={} epoch={}", e.agentId(), e.epoch());
        return presence.release(e);
      }).toList())));
    return Future.join(work).mapEmpty();
  }
}
