package dev.conclave.platform.auth;

import dev.conclave.contract.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Tokens that live exactly as long as an agent's session: the MCP token of a Welcome. Such a token is
 * not stored in {@code auth.tokens}; its id is an entry of a cluster-wide shared-data map
 * ({@link Addresses#AUTH_SESSION_TOKENS_MAP}) naming its principal, its agent, the capabilities that
 * agent registered with, and the cluster member that holds the session. The session removes the entry
 * when it ends, so the token stops working on every node at once; an entry whose member left the
 * cluster (its node died) no longer counts; and every entry expires with its token. Verifying such a
 * token is one shared-data read, no database query.
 */
public final class SessionTokens {

  /** One session's token: its value for the Welcome, and the end of its life. */
  public static final class SessionToken {
    private final String token;
    private final UUID tokenId;
    private final Future<Void> recorded;
    private final SessionTokens owner;

    SessionToken(String token, UUID tokenId, Future<Void> recorded, SessionTokens owner) {
      this.token = token;
      this.tokenId = tokenId;
      this.recorded = recorded;
      this.owner = owner;
    }

    public String token() {
      return token;
    }

    public UUID tokenId() {
      return tokenId;
    }

    /** Completes once the token works on every node; send it to the agent only then. */
    public Future<Void> recorded() {
      return recorded;
    }

    /** Ends the token (once recorded, if it is still being recorded): it stops working on every node. */
    public Future<Void> end() {
      return recorded.transform(ar -> owner.end(tokenId));
    }
  }

  /** The member id of a node without a cluster manager (the same as {@code ClusterMembership.STANDALONE}). */
  static final String STANDALONE = "standalone";

  private final Future<AsyncMap<String, JsonObject>> map;
  private final String localMember;
  private final Predicate<String> isMember;

  /**
   * Session tokens recorded by this node as {@code localMember}, and counted only while their
   * member {@code isMember} (the node's cluster membership: {@code ClusterMembership::localMember}
   * and {@code ::isMember}).
   */
  public SessionTokens(Vertx vertx, String localMember, Predicate<String> isMember) {
    this.map = vertx.sharedData().getAsyncMap(Addresses.AUTH_SESSION_TOKENS_MAP);
    this.localMember = localMember;
    this.isMember = isMember;
  }

  /** For a process that runs no cluster (the CLI, tests). */
  static SessionTokens standalone(Vertx vertx) {
    return new SessionTokens(vertx, STANDALONE, STANDALONE::equals);
  }

  /** Records a signed token for {@code scope}'s session on this node, for at most {@code ttl}. */
  SessionToken record(String token, UUID tokenId, UUID principalId, AgentScope scope, Duration ttl) {
    JsonObject entry = new JsonObject()
      .put("principalId", principalId.toString())
      .put("agentId", scope.agentId())
      .put("capabilities", new JsonArray(scope.capabilities().stream().sorted().toList()))
      .put("member", localMember)
      .put("issuedAt", Instant.now().toString());
    Future<Void> recorded = map.compose(m -> m.put(tokenId.toString(), entry, ttl.toMillis()));
    return new SessionToken(token, tokenId, recorded, this);
  }

  /**
   * The scope of a live session's token: the agent and the capabilities its session registered with.
   * Fails with {@code token_session_ended} when the session ended, its node left the cluster, or no
   * session ever held the token; with {@code token_invalid} when the token names another principal
   * or agent than its session.
   */
  Future<AgentScope> resolve(Claims claims) {
    return map.compose(m -> m.get(claims.tokenId().toString())).compose(entry -> {
      if (entry == null || !isMember.test(entry.getString("member", ""))) {
        return Future.failedFuture(AuthErrors.sessionEnded());
      }
      if (!claims.subject().toString().equals(entry.getString("principalId"))
        || !claims.agentId().map(a -> a.equals(entry.getString("agentId"))).orElse(false)) {
        return Future.failedFuture(AuthErrors.invalidToken());
      }
      Set<String> capabilities = new HashSet<>();
      entry.getJsonArray("capabilities", new JsonArray()).forEach(c -> capabilities.add(String.valueOf(c)));
      return Future.succeededFuture(new AgentScope(entry.getString("agentId"), capabilities));
    });
  }

  Future<Void> end(UUID tokenId) {
    return map.compose(m -> m.remove(tokenId.toString())).mapEmpty();
  }
}
