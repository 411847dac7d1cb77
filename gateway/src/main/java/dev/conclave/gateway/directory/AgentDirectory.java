package dev.conclave.gateway.directory;

import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.proto.coven.AgentInfo;
import io.vertx.core.Future;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What {@code ListAgents} answers: every known agent (from PostgreSQL), marked connected when the
 * cluster-wide presence directory holds a session for it. Every node answers the same.
 */
public final class AgentDirectory {

  private final AgentStore agents;
  private final Presence presence;

  public AgentDirectory(AgentStore agents, Presence presence) {
    this.agents = agents;
    this.presence = presence;
  }

  public Future<List<AgentInfo>> list(Optional<String> workspace) {
    return presence.all().compose(present -> {
      Map<String, PresenceEntry> online = present.stream().collect(Collectors.toMap(PresenceEntry::agentId, Function.identity(), (a, b) -> a));
      return agents.list(workspace).map(known -> known.stream().map(a -> AgentInfo.newBuilder()
        .setId(a.agentId())
        .setName(a.name())
        .setBackend(a.metadata().getBackend())
        .setWorkingDir(a.metadata().getWorkingDirectory())
        .setConnected(online.containsKey(a.agentId()))
        .setMetadata(a.metadata())
        .build()).toList());
    });
  }
}
