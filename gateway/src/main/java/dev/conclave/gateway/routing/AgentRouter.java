package dev.conclave.gateway.routing;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;

/** Finds the node holding an agent's stream and sends it commands, always with a timeout. */
public final class AgentRouter {

  private static final Logger LOG = LoggerFactory.getLogger(AgentRouter.class);

  private final Vertx vertx;
  private final Presence presence;
  private final DeliveryOptions options;

  public AgentRouter(Vertx vertx, Presence presence, Duration timeout) {
    this.vertx = vertx;
    this.presence = presence;
    this.options = new DeliveryOptions().setSendTimeout(timeout.toMillis());
  }

  public Future<Optional<PresenceEntry>> owner(String agentId) {
    return presence.get(agentId);
  }

  /** Sends a command to the node of {@code owner}; fails with a caller-facing error if it cannot. */
  public Future<JsonObject> send(PresenceEntry owner, JsonObject command) {
    return vertx.eventBus().<JsonObject>request(Addresses.gatewayNode(owner.node()), command, options)
      .map(reply -> reply.body())
      .recover(err -> Future.failedFuture(translate(err, owner.agentId())));
  }

  /** Tells the agent's node, if the agent is connected anywhere, that work is waiting. */
  public void wake(String agentId) {
    presence.get(agentId).onSuccess(owner -> owner.ifPresent(o -> send(o, NodeCommand.wake(agentId))
      .onFailure(err -> LOG.debug("wake not delivered agent={} node={} error={}", agentId, o.node(), err.getMessage()))));
  }

  private static Throwable translate(Throwable err, String agentId) {
    if (err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
      return CommandFailures.fromReply(re, agentId);
    }
    return GatewayErrors.ownerUnreachable(agentId);
  }
}
