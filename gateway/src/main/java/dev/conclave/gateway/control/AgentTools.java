package dev.conclave.gateway.control;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.model.AgentRecord;
import dev.conclave.gateway.ledger.EventCursors;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.ledger.LedgerViews;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.UsageStore;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.Caller;
import dev.conclave.proto.coven.Event;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What the admin built-in tools read: the agents connected anywhere in the cluster, and a page of an
 * agent's conversation with its token usage. Output keys follow coven-gateway's admin tools.
 */
public final class AgentTools {

  static final int DEFAULT_PAGE = 50;
  static final int MAX_PAGE = 500;

  private final Presence presence;
  private final AgentStore agents;
  private final LedgerStore ledger;
  private final UsageStore usage;
  private final AgentAccess access;

  public AgentTools(Presence presence, AgentStore agents, LedgerStore ledger, UsageStore usage, AgentAccess access) {
    this.presence = presence;
    this.agents = agents;
    this.ledger = ledger;
    this.usage = usage;
    this.access = access;
  }

  /** {@code admin_list_agents}: every connected agent {@code actor} may act on, by id. */
  public Future<JsonObject> listConnected(Caller actor) {
    Future<Optional<Set<UUID>>> visible = actor.isAdmin() ? Future.succeededFuture(Optional.empty())
      : access.agentPrincipalsOf(actor).map(Optional::of);
    return visible.compose(allowed -> presence.all().compose(present -> agents.list(Optional.empty()).map(known -> {
      Map<String, AgentRecord> byId = known.stream().collect(Collectors.toMap(AgentRecord::agentId, Function.identity(), (a, b) -> a));
      JsonArray out = new JsonArray();
      present.stream().sorted(Comparator.comparing(PresenceEntry::agentId))
        .filter(p -> allowed.map(a -> a.contains(p.principalId())).orElse(true))
        .forEach(p -> out.add(new JsonObject()
        .put("backend", p.metadata().getBackend())
        .put("capabilities", new JsonArray(p.capabilities()))
        .put("id", p.agentId())
        .put("instance_id", Optional.ofNullable(byId.get(p.agentId())).map(AgentRecord::instanceId).orElse(""))
        .put("name", p.name())
        .put("node", p.node())
        .put("workspaces", new JsonArray(p.metadata().getWorkspacesList()))
        .put("working_dir", p.metadata().getWorkingDirectory())));
      return new JsonObject().put("agents", out).put("count", out.size());
    })));
  }

  /** {@code admin_agent_messages}: the agent's own conversation, oldest first, a page at a time. */
  public Future<JsonObject> messages(Caller actor, String agentId, int requestedLimit, String cursor) {
    if (agentId.isBlank()) {
      return Future.failedFuture(GatewayErrors.required("agent_id"));
    }
    int limit = requestedLimit <= 0 ? DEFAULT_PAGE : Math.min(requestedLimit, MAX_PAGE);
    long after = cursor.isBlank() ? 0 : EventCursors.parseCursor(cursor);
    return access.require(actor, agentId).compose(v -> ledger.page(agentId, after, Optional.empty(), Optional.empty(), limit + 1))
      .compose(events -> usage.totals(true, agentId).map(totals -> page(agentId, events, limit, totals)));
  }

  private static JsonObject page(String agentId, List<LedgerEvent> events, int limit, JsonObject totals) {
    boolean more = events.size() > limit;
    List<LedgerEvent> shown = more ? events.subList(0, limit) : events;
    JsonArray out = new JsonArray();
    for (LedgerEvent e : shown) {
      Event h = LedgerViews.historyEvent(e);
      JsonObject json = new JsonObject().put("author", h.getAuthor()).put("direction", h.getDirection()).put("id", h.getId())
        .put("timestamp", h.getTimestamp()).put("type", h.getType());
      if (h.hasText()) {
        json.put("text", h.getText());
      }
      out.add(json);
    }
    JsonObject result = new JsonObject().put("agent_id", agentId).put("count", shown.size()).put("events", out).put("has_more", more);
    if (more) {
      result.put("next_cursor", EventCursors.cursorAfter(shown.get(shown.size() - 1).seq()));
    }
    long input = totals.getLong("inputTokens");
    long output = totals.getLong("outputTokens");
    long thinking = totals.getLong("thinkingTokens");
    return result.put("usage", new JsonObject()
      .put("request_count", totals.getLong("requests"))
      .put("total_cache_read", totals.getLong("cacheReadTokens"))
      .put("total_cache_write", totals.getLong("cacheWriteTokens"))
      .put("total_input", input)
      .put("total_output", output)
      .put("total_thinking", thinking)
      .put("total_tokens", input + output + thinking));
  }
}
