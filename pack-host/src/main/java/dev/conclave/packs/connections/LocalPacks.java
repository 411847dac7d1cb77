package dev.conclave.packs.connections;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The pack streams this node holds, by connection id; shared by every edge instance of the node. */
public final class LocalPacks {

  private final Map<String, PackConnection> byConnection = new ConcurrentHashMap<>();
  private volatile boolean draining;

  public void add(PackConnection connection) {
    byConnection.put(connection.connectionId(), connection);
  }

  public void remove(PackConnection connection) {
    byConnection.remove(connection.connectionId(), connection);
  }

  public Optional<PackConnection> get(String connectionId) {
    return Optional.ofNullable(byConnection.get(connectionId));
  }

  /** This node's connections of one principal (a pack principal usually has one). */
  public List<PackConnection> ofPrincipal(String principalId) {
    return byConnection.values().stream().filter(c -> c.record().principalId().equals(principalId)).toList();
  }

  public Collection<PackConnection> all() {
    return List.copyOf(byConnection.values());
  }

  public int size() {
    return byConnection.size();
  }

  /** A stopping node takes no new packs. */
  public void startDraining() {
    draining = true;
  }

  public boolean draining() {
    return draining;
  }
}
