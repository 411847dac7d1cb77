package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.retention.AgentRetentionStore;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.json.JsonObject;

import java.util.Optional;
import java.util.Set;

/**
 * An agent's own retention over HTTP, for admins (issue 47): {@code GET} and {@code PUT
 * /api/v1/gateway/agents/{agentId}/retention} with {@code {"conversationDays": N|null, "keepEvents":
 * M|null}}; null or absent is the node's setting, so a {@code PUT} of {@code {}} clears the override.
 * The answer adds {@code effective}: what retention applies to the agent now, override or setting
 * (its finished requests follow its own window when it has one). docs/gateway.md.
 */
public final class AgentRetentionHttpApi {

  static final String DAYS = "conversationDays";
  static final String KEEP = "keepEvents";
  /** A century: longer is a typo, and keeps the window's seconds far inside the statements' arithmetic. */
  static final int MAX_DAYS = 36_500;
  /** As {@code CONCLAVE_CONVERSATION_KEEP_EVENTS} allows. */
  static final int MAX_KEEP = 1_000_000;

  private final AgentRetentionStore store;
  private final long settingDays;
  private final int settingKeep;
  private final long settingRequestDays;

  public AgentRetentionHttpApi(AgentRetentionStore store, ConclaveConfig config) {
    this.store = store;
    this.settingDays = config.get(GatewaySettings.CONVERSATION_RETENTION).toDays();
    this.settingKeep = config.get(GatewaySettings.CONVERSATION_KEEP_EVENTS);
    this.settingRequestDays = config.get(GatewaySettings.REQUEST_RETENTION).toDays();
  }

  public void mount(HttpRoutes routes) {
    String path = GatewayHttpApi.BASE + "/agents/:agentId/retention";
    routes.get(path, Audience.ADMINS, Resource.NONE, (caller, ctx) -> {
      String agentId = ctx.pathParam("agentId");
      return store.find(agentId).map(found -> json(found.orElseThrow(() -> GatewayErrors.agentUnknown(agentId))));
    });
    routes.put(path, Audience.ADMINS, Resource.NONE, (caller, ctx) -> {
      JsonObject body = GatewayHttpApi.body(ctx);
      for (String field : body.fieldNames()) {
        if (!Set.of(DAYS, KEEP).contains(field)) {
          throw GatewayErrors.invalid(field, "is not a retention field; use " + DAYS + ", " + KEEP);
        }
      }
      Optional<Integer> days = number(body, DAYS, 1, MAX_DAYS);
      Optional<Integer> keep = number(body, KEEP, 0, MAX_KEEP);
      return store.set(ctx.pathParam("agentId"), days, keep, Optional.of(caller.principalId())).map(this::json);
    });
  }

  /** A whole number in [min, max], or null/absent for the node's setting. */
  private static Optional<Integer> number(JsonObject body, String field, int min, int max) {
    Object value = body.getValue(field);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue()) || n.doubleValue() < min || n.doubleValue() > max) {
      throw GatewayErrors.invalid(field, "must be a whole number from " + min + " to " + max + ", or null for the node's setting");
    }
    return Optional.of(n.intValue());
  }

  private JsonObject json(AgentRetentionStore.Override o) {
    long days = o.conversationDays().map(Integer::longValue).orElse(settingDays);
    JsonObject effective = new JsonObject().put(DAYS, days).put(KEEP, o.keepEvents().orElse(settingKeep))
      .put("requestDays", o.conversationDays().map(Integer::longValue).orElse(settingRequestDays));
    return new JsonObject().put("agentId", o.agentId()).put(DAYS, o.conversationDays().orElse(null)).put(KEEP, o.keepEvents().orElse(null))
      .put("effective", effective);
  }
}
