package dev.conclave.gateway.directory;

import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.Caller;
import dev.conclave.proto.coven.AgentInfo;
import io.vertx.core.Future;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What {@code ListAgents} answers: the known agents (from PostgreSQL) the caller may act on, marked
 * connected when the cluster-wide presence directory holds a session for it. Every node answers the same.
 */
public final class AgentDirectory {

  private final AgentStore agents;
  private final Presence presence;
  private final AgentAccess access;

  public AgentDirectory(AgentStore agents, Presence presence, AgentAccess access) {
    this.agents = agents;
    this.presence = presence;
    this.access = access;
  }

  /** The agents {@code caller} may act on (every agent, for admins). */
  public Future<List<AgentInfo>> list(Caller caller, Optional<String> workspace) {
    Future<Optional<Set<UUID>>> visible = caller.isAdmin() ? Future.succeededFuture(Optional.empty())
      : access.agentPrincipalsOf(caller).map(Optional::of);
    return visible.compose(principals -> presence.all().compose(present -> {
      Map<String, PresenceEntry> online = present.stream().collect(Collectors.toMap(PresenceEntry::agentId, Function.identity(), (a, b) -> a));
      return agents.list(workspace).map(known -> known.stream()
        .filter(a -> principals.map(p -> p.contains(a.principalId())).orElse(true))
        .map(a -> AgentInfo.newBuilder()
        .setId(a.agentId())
        .setName(a.name())
        .setBackend(a.metadata().getBackend())
        .setWorkingDir(a.metadata().getWorkingDirectory())
        .setConnected(online.containsKey(a.agentId()))
        .setMetadata(a.metadata())
        .build()).toList());
    }));
  }

  /** The sessions the cluster holds now, by agent id. */
  public Future<Map<String, PresenceEntry>> online() {
    return presence.all().map(present -> present.stream()
      .collect(Collectors.toMap(PresenceEntry::agentId, Function.identity(), (a, b) -> a)));
  }
}
