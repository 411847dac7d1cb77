package dev.conclave.gateway.directory;

import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;

/**
 * Who may read and follow a conversation: whoever may act on its agent. The agent is the one the
 * conversation was created for, or (before its first event) the one its key routes to: a binding
 * {@code frontend:channel}, or an agent id.
 */
public final class ConversationAccess {

  private final Pool pool;
  private final AgentAccess agents;

  public ConversationAccess(Pool pool, AgentAccess agents) {
    this.pool = pool;
    this.agents = agents;
  }

  /** The rule for agents named directly. */
  public AgentAccess agents() {
    return agents;
  }

  public Future<Void> require(Caller caller, String conversationKey) {
    if (caller.isAdmin()) {
      return Future.succeededFuture();
    }
    int colon = conversationKey.indexOf(':');
    String frontend = colon > 0 ? conversationKey.substring(0, colon) : null;
    String channel = colon > 0 ? conversationKey.substring(colon + 1) : null;
    return pool.preparedQuery("SELECT coalesce((SELECT agent_id FROM gateway.conversations WHERE conversation_key = $1),"
        + " (SELECT agent_id FROM gateway.bindings WHERE frontend = $2 AND channel_id = $3), $1) AS agent_id")
      .execute(Tuple.of(conversationKey, frontend, channel))
      .compose(rows -> agents.require(caller, rows.iterator().next().getString("agent_id")))
      .recover(err -> Future.failedFuture(err instanceof dev.conclave.platform.errors.ConclaveException ce
        && ce.kind() == dev.conclave.platform.errors.ErrorKind.PERMISSION_DENIED ? AuthErrors.noConversationAccess(conversationKey) : err));
  }
}
