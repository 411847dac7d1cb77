package dev.conclave.gateway.control;

import dev.conclave.platform.access.AgentGrants;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import io.vertx.core.Future;

import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.UUID;

/**
 * Who an agent acts as when it uses the admin built-in tools: its owner. An agent can look at and
 * message exactly the agents its owner may act on (an admin's agents: all of them), so declaring the
 * {@code admin} capability gives an agent no more than its owner already has.
 */
public final class ActingOwner {

  private final AgentGrants grants;
  private final PrincipalStore principals;

  public ActingOwner(AgentGrants grants, PrincipalStore principals) {
    this.grants = grants;
    this.principals = principals;
  }

  public Future<Caller> of(String agentId) {
    return grants.ownership(agentId).compose(found -> {
      Optional<String> owner = found.flatMap(o -> Optional.ofNullable(o.getString("ownerId")));
      if (owner.isEmpty()) {
        return Future.failedFuture(new ConclaveException(ErrorKind.PERMISSION_DENIED, "agent_has_no_owner",
          "agent '" + agentId + "' has no owner; admin tools act with the access of the agent's owner"));
      }
      UUID id = UUID.fromString(owner.get());
      return principals.find(id).map(p -> p.filter(x -> x.approved()).map(x -> new Caller(x.id(), x.type(), new HashSet<>(x.roles()),
        Optional.empty(), Instant.now().plusSeconds(600))).orElseThrow(() -> AuthErrors.principalNotActive(id.toString(), "not approved")));
    });
  }
}
