package dev.conclave.platform.access;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.db.sql.NamedStatement;
import dev.conclave.platform.db.sql.SqlFile;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The one decision of who may act on an agent: its owner (the member who created or registered the
 * agent's principal), principals granted access to it, the agent's own principal, and admins. Every
 * edge that names an agent (or a conversation, through its agent) asks here. It reads the agent
 * directory ({@code gateway.agents}, agent id to principal) read-only, so that every role and every
 * node decides the same way from the same rows; grants and owners are in schema {@code auth}.
 * A conversation is read through its agents ({@link #requireConversation}). The rule is one
 * statement ({@code access.sql}, {@link #check}), asked once per call here and for many open
 * followers at once by {@link LiveAccess}.
 */
public final class AgentAccess {

  private static final SqlFile SQL = SqlFile.of(AgentAccess.class, "access.sql");
  private static final NamedStatement CHECK = SQL.get("Check");

  /** One question: may {@code principal} act on {@code agentId} and read {@code conversationKey} (each may be null). */
  public record Question(UUID principal, String agentId, String conversationKey) {
  }

  /** The answer: the rule's verdict, and the roles the principal holds now. */
  public record Verdict(boolean allowed, Set<String> roles) {
  }

  private final Pool pool;

  public AgentAccess(Pool pool) {
    this.pool = pool;
  }

  /** Succeeds when {@code caller} may act on {@code agentId}; otherwise PERMISSION_DENIED (unknown agents included). */
  public Future<Void> require(Caller caller, String agentId) {
    if (caller.isAdmin()) {
      return Future.succeededFuture();
    }
    return check(List.of(new Question(caller.principalId(), agentId, null))).compose(v -> v.get(0).allowed()
      ? Future.succeededFuture() : Future.failedFuture(AuthErrors.noAgentAccess(agentId)));
  }

  /**
   * Succeeds when {@code caller} may read conversation {@code conversationKey}: it may act on every
   * agent the conversation belongs to (the one it was created for, the one its key is bound to now;
   * for a key that is neither, the agent it names). Otherwise PERMISSION_DENIED.
   */
  public Future<Void> requireConversation(Caller caller, String conversationKey) {
    if (caller.isAdmin()) {
      return Future.succeededFuture();
    }
    return check(List.of(new Question(caller.principalId(), null, conversationKey))).compose(v -> v.get(0).allowed()
      ? Future.succeededFuture() : Future.failedFuture(AuthErrors.noConversationAccess(conversationKey)));
  }

  /** The rule for each question, in order, in one statement. */
  public Future<List<Verdict>> check(List<Question> questions) {
    if (questions.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    UUID[] principals = new UUID[questions.size()];
    String[] agents = new String[questions.size()];
    String[] conversations = new String[questions.size()];
    for (int i = 0; i < questions.size(); i++) {
      principals[i] = questions.get(i).principal();
      agents[i] = questions.get(i).agentId();
      conversations[i] = questions.get(i).conversationKey();
    }
    return CHECK.with("principals", principals).with("agents", agents).with("conversations", conversations).execute(pool)
      .map(rows -> {
        List<Verdict> out = new ArrayList<>(questions.size());
        for (Row r : rows) {
          out.add(new Verdict(r.getBoolean("allowed"), Set.copyOf(java.util.Arrays.asList(r.getArrayOfStrings("roles")))));
        }
        if (out.size() != questions.size()) {
          throw new IllegalStateException("access check answered " + out.size() + " of " + questions.size() + " questions");
        }
        return out;
      });
  }

  /**
   * The rule of {@link #require} as SQL, for a statement that checks it as it writes: the call of
   * {@code auth.may_act_on} (db/auth/R__access.sql) with two SQL expressions, true when principal
   * {@code principal} may act on agent {@code agent}, false otherwise (unknown agents included).
   * Admins may act on every agent; that is the caller's to check. Only for statements still built in
   * Java: a named statement calls {@code auth.may_act_on(:agent_id, :principal)} itself.
   */
  public static String allows(String agent, String principal) {
    return "auth.may_act_on(" + agent + ", " + principal + ")";
  }

  /** The agent principals {@code caller} may act on (owned or granted); admins see everything, so callers check that first. */
  public Future<Set<UUID>> agentPrincipalsOf(Caller caller) {
    return SQL.get("AgentPrincipalsOf").with("principal", caller.principalId()).execute(pool)
      .map(rows -> {
        Set<UUID> out = new HashSet<>();
        for (Row r : rows) {
          out.add(r.getUUID(0));
        }
        out.add(caller.principalId());
        return out;
      });
  }
}
