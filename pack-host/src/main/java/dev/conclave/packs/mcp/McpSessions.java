package dev.conclave.packs.mcp;

import dev.conclave.contract.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;

/**
 * MCP sessions, cluster-wide (shared data), so a client may reach any node with its
 * {@code Mcp-Session-Id}. A session belongs to the principal and agent whose token opened it and
 * lives at most {@link #TTL}; after that, or after DELETE, the client must initialize again.
 */
public final class McpSessions {

  public static final Duration TTL = Duration.ofHours(24);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** One session. */
  public record Session(String id, UUID principalId, String agentId, String protocolVersion) {
  }

  private final Future<AsyncMap<String, JsonObject>> map;

  public McpSessions(Vertx vertx) {
    this.map = vertx.sharedData().getAsyncMap(Addresses.MCP_SESSIONS_MAP);
  }

  public Future<Session> open(UUID principalId, String agentId, String protocolVersion) {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    Session session = new Session(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes), principalId, agentId, protocolVersion);
    JsonObject json = new JsonObject().put("principalId", principalId.toString()).put("agentId", agentId)
      .put("protocolVersion", protocolVersion).put("createdAt", Instant.now().toString());
    return map.compose(m -> m.put(session.id(), json, TTL.toMillis())).map(session);
  }

  /** The session, if it exists and belongs to this principal and agent. */
  public Future<Optional<Session>> find(String id, UUID principalId, String agentId) {
    return map.compose(m -> m.get(id)).map(json -> Optional.ofNullable(json)
      .map(j -> new Session(id, UUID.fromString(j.getString("principalId")), j.getString("agentId"), j.getString("protocolVersion")))
      .filter(s -> s.principalId().equals(principalId) && s.agentId().equals(agentId)));
  }

  public Future<Void> close(String id) {
    return map.compose(m -> m.remove(id)).mapEmpty();
  }
}
