package dev.conclave.gateway.mailbox;

import dev.conclave.platform.collections.Lru;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What this node remembers of where conversations go and of what senders are called, so that a
 * client's message needs no lookup before it is written. A remembered route is a guess: the
 * statement that writes the message checks that the conversation still routes to that agent and
 * that the agent is not retired ({@link Mailbox.Enqueued#routed}), and a guess that no longer holds is
 * forgotten and looked up again. A sender's name is the principal's display name, which never
 * changes once the principal exists. Both are bounded; the least recently used go first.
 */
final class RouteMemory {

  static final int MAX_ROUTES = 16_384;
  static final int MAX_NAMES = 4_096;

  private final Map<String, String> routes = Lru.map(MAX_ROUTES);
  private final Map<UUID, String> names = Lru.map(MAX_NAMES);

  /** The agent conversation {@code key} went to when last looked up. */
  synchronized Optional<String> agentOf(String key) {
    return Optional.ofNullable(routes.get(key));
  }

  /** The name messages of {@code principal} carry as their sender. */
  synchronized Optional<String> nameOf(UUID principal) {
    return Optional.ofNullable(names.get(principal));
  }

  /** A lookup found conversation {@code key} going to {@code agentId}, and {@code principal} called {@code name}. */
  synchronized void remember(String key, String agentId, UUID principal, String name) {
    routes.put(key, agentId);
    names.put(principal, name);
  }

  /** The remembered route of {@code key} did not hold. */
  synchronized void forget(String key) {
    routes.remove(key);
  }
}
