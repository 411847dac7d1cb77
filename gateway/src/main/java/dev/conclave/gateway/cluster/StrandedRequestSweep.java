package dev.conclave.gateway.cluster;

import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.sessions.LocalSessions;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Ends requests in flight on this node whose session is gone, now rather than when their agent
 * happens to return: a request dispatched here to an (agent, epoch) that is not among the sessions
 * this node holds ends with a recoverable error (see {@link Terminations#stranded}).
 */
public final class StrandedRequestSweep {

  private static final Logger LOG = LoggerFactory.getLogger(StrandedRequestSweep.class);

  private final String nodeId;
  private final LocalSessions sessions;
  private final Terminations terminations;

  public StrandedRequestSweep(String nodeId, LocalSessions sessions, Terminations terminations) {
    this.nodeId = nodeId;
    this.sessions = sessions;
    this.terminations = terminations;
  }

  /** One pass; failures are logged, not returned. */
  public void sweep() {
    List<String> agents = new ArrayList<>();
    List<Long> epochs = new ArrayList<>();
    for (var session : sessions.all()) {
      agents.add(session.agentId());
      epochs.add(session.epoch());
    }
    terminations.stranded(nodeId, agents, epochs)
      .onSuccess(n -> {
        if (n > 0) {
          LOG.warn("role gateway: ended {} in-flight requests whose session closed without ending them", n);
        }
      })
      .onFailure(err -> LOG.warn("role gateway: stranded-request sweep failed error={}", err.getMessage()));
  }
}
