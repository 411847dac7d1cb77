package dev.conclave.packs.mcp;

import dev.conclave.contract.Addresses;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
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
 * lives at most {@link #TTL}; after that, or after DELETE, the client must initialize again. MCP
 * holds nothing open between requests, so its access is re-checked on each: a session whose caller
 * may no longer act on its agent (the agent id passed to another principal) is closed, and the
 * request fails with PERMISSION_DENIED {@code access_revoked}.
 */
public final class McpSessions {

  public static final Duration TTL = Duration.ofHours(24);
  private static final SecureRandom RANDOM = new SecureRandom();

  /** One session. */
  public record Session(String id, UUID principalId, String agentId, String protocolVersion) {
  }

  private final Future<AsyncMap<String, JsonObject>> map;
  private final AgentAccess access;

  public McpSessions(Vertx vertx, AgentAccess access) {
    this.map = vertx.sharedData().getAsyncMap(Addresses.MCP_SESSIONS_MAP);
    this.access = access;
  }

  /** Opens a session for the caller's agent, if the caller may act on it. */
  public Future<Session> open(Caller caller, String protocolVersion) {
    String agentId = caller.agentScope().orElseThrow().agentId();
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    Session session = new Session(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes), caller.principalId(), agentId, protocolVersion);
    JsonObject json = new JsonObject().put("principalId", caller.principalId().toString()).put("agentId", agentId)
      .put("protocolVersion", protocolVersion).put("createdAt", Instant.now().toString());
    return access.require(caller, agentId).compose(v -> map).compose(m -> m.put(session.id(), json, TTL.toMillis())).map(session);
  }

  /**
   * The session, if it exists and belongs to the caller's principal and agent; fails with
   * {@code access_revoked} (the session closed) when the caller may no longer act on that agent.
   */
  public Future<Optional<Session>> find(String id, Caller caller) {
    String agentId = caller.agentScope().orElseThrow().agentId();
    return map.compose(m -> m.get(id)).map(json -> Optional.ofNullable(json)
      .map(j -> new Session(id, UUID.fromString(j.getString("principalId")), j.getString("agentId"), j.getString("protocolVersion")))
      .filter(s -> s.principalId().equals(caller.principalId()) && s.agentId().equals(agentId)))
      .compose(found -> found.isEmpty() ? Future.succeededFuture(found) : access.require(caller, agentId).map(found)
        .recover(err -> err instanceof ConclaveException e && e.kind() == ErrorKind.PERMISSION_DENIED
          ? close(id).transform(v -> Future.failedFuture(AuthErrors.accessRevoked("agent '" + agentId + "'",
            "this MCP session's principal may no longer act on it; the session is closed")))
          : Future.failedFuture(err)));
  }

  public Future<Void> close(String id) {
    return map.compose(m -> m.remove(id)).mapEmpty();
  }
}
