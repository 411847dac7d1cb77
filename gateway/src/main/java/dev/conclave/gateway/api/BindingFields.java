package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.store.BindingStore;
import dev.conclave.platform.validation.TextRules;

/**
 * What a binding's fields may hold, checked before anything is written, each failure
 * INVALID_ARGUMENT {@code binding_invalid} naming the field and the rule: the frontend is an
 * identifier without ':' (the conversation key is {@code <frontend>:<channel_id>}, split at the first
 * colon, so a frontend with one could never be reached); the channel is free text as frontends spell
 * it ({@code !room:matrix.org}, {@code C024BE91L}) but without control or invisible characters; the
 * agent id follows the rule agents register with.
 */
final class BindingFields {

  private BindingFields() {
  }

  static void check(String frontend, String channelId, String agentId) {
    if (frontend.isEmpty()) {
      throw GatewayErrors.badBinding("frontend", "is required");
    }
    TextRules.idProblem(frontend, BindingStore.MAX_FRONTEND).ifPresent(why -> {
      throw GatewayErrors.badBinding("frontend", why);
    });
    if (frontend.indexOf(':') >= 0) {
      throw GatewayErrors.badBinding("frontend", "must not contain ':' (the conversation key is <frontend>:<channel_id>)");
    }
    if (channelId.isBlank()) {
      throw GatewayErrors.badBinding("channel_id", "is required");
    }
    TextRules.nameProblem(channelId, BindingStore.MAX_CHANNEL_ID).ifPresent(why -> {
      throw GatewayErrors.badBinding("channel_id", why);
    });
    checkAgent(agentId);
  }

  static void checkAgent(String agentId) {
    if (agentId.isEmpty()) {
      throw GatewayErrors.badBinding("agent_id", "is required");
    }
    TextRules.idProblem(agentId, BindingStore.MAX_AGENT_ID).ifPresent(why -> {
      throw GatewayErrors.badBinding("agent_id", why);
    });
  }
}
