package dev.conclave.gateway.control;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.routing.NodeCommand;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.gateway.store.InjectionStore;
import dev.conclave.platform.auth.Caller;
import dev.conclave.proto.coven.InjectionPriority;
import io.vertx.core.Future;

import java.util.Optional;
import java.util.UUID;

/** Pushes context into connected agents that declared {@code injection}, and records their answers. */
public final class Injections {

  /** An injection handed to the agent's stream; the agent's ack arrives later. */
  public record Sent(UUID injectionId, String agentId) {
  }

  private final AgentStore agents;
  private final InjectionStore store;
  private final AgentRouter router;

  public Injections(AgentStore agents, InjectionStore store, AgentRouter router) {
    this.agents = agents;
    this.store = store;
    this.router = router;
  }

  public Future<Sent> inject(Caller caller, String agentId, String content, InjectionPriority priority, Optional<String> source) {
    if (content.isEmpty()) {
      return Future.failedFuture(GatewayErrors.required("content"));
    }
    return agents.find(agentId).compose(agent -> {
      if (agent.isEmpty()) {
        return Future.failedFuture(GatewayErrors.agentUnknown(agentId));
      }
      return router.owner(agentId);
    }).compose(owner -> {
      if (owner.isEmpty()) {
        return Future.failedFuture(GatewayErrors.agentNotConnected(agentId));
      }
      if (!owner.get().declared("injection")) {
        return Future.failedFuture(GatewayErrors.featureNotDeclared(agentId, "injection"));
      }
      UUID id = UUID.randomUUID();
      return store.recordSent(id, agentId, content, priority.name(), source, caller.principalId())
        .compose(v -> router.send(owner.get(), NodeCommand.inject(agentId, owner.get().epoch(), id, content, priority.getNumber(), source.orElse(null)))
          .recover(err -> store.markUndelivered(id, err.getMessage()).compose(x -> Future.failedFuture(err))))
        .map(reply -> new Sent(id, agentId));
    });
  }
}
