package dev.conclave.platform.access;

import java.util.Optional;

/**
 * What an open follower needs to keep following, re-checked by {@link LiveAccess} whenever access
 * changes: who may follow at all (its route's {@link Audience}, judged on the roles the caller still
 * holds) and, when it follows one, the agent it acts on and the conversation it reads (the rule of
 * {@link AgentAccess}; admins pass it). {@code name} is how an error calls it.
 */
public record AccessTarget(Audience audience, Optional<String> agentId, Optional<String> conversationKey, String name) {

  /** Nothing beyond the audience (a dashboard address every member may follow, a session not configured yet). */
  public static AccessTarget of(Audience audience, String name) {
    return new AccessTarget(audience, Optional.empty(), Optional.empty(), name);
  }

  /** A conversation, read through its agents. */
  public static AccessTarget conversation(Audience audience, String conversationKey) {
    return new AccessTarget(audience, Optional.empty(), Optional.of(conversationKey), "conversation '" + conversationKey + "'");
  }

  /** An agent and one of its conversations (a session drives the one and follows the other). */
  public static AccessTarget agentAndConversation(Audience audience, String agentId, String conversationKey) {
    return new AccessTarget(audience, Optional.of(agentId), Optional.of(conversationKey), agentId.equals(conversationKey)
      ? "agent '" + agentId + "'" : "conversation '" + conversationKey + "' of agent '" + agentId + "'");
  }

  /** True when an agent or a conversation is named, which only its owner, grantees and admins may follow. */
  boolean namesResource() {
    return agentId.isPresent() || conversationKey.isPresent();
  }
}
