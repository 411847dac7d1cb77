package dev.conclave.gateway.registry;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.model.AgentQuery;
import dev.conclave.gateway.model.Classification;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.model.MemberNames;
import dev.conclave.gateway.model.RegistryEntry;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import dev.conclave.gateway.store.RegistryStore;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.validation.TextRules;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The agent registry of seed 004: {@code RegisterAgent} (an entry, with an optional parent, that a
 * later {@code AgentStream} of the same id connects to) and {@code AgentQuery}. Used by the HTTP API
 * and the session protocol alike, so both answer the same.
 */
public final class AgentRegistry {

  /** The states a new entry may start in; Running is entered when the agent connects. */
  static final Set<LifecycleState> INITIAL = EnumSet.of(LifecycleState.DEFINED, LifecycleState.PROVISIONING, LifecycleState.INITIALIZED);

  private final RegistryStore store;
  private final Presence presence;
  private final AgentAccess access;

  public AgentRegistry(RegistryStore store, Presence presence, AgentAccess access) {
    this.store = store;
    this.presence = presence;
    this.access = access;
  }

  /**
   * {@code RegisterAgent}: {@code {"agentId", "name"?, "classification"?, "parentId"?,
   * "capabilities"?, "principalId"?, "lifecycle"?}}, its members named as {@code names} spells them
   * (the session protocol: {@code agent_id}, ...). The entry belongs to {@code principalId} (the agent
   * principal that will connect it; the caller when absent) and starts Initialized unless
   * {@code lifecycle} says Defined or Provisioning. Answers the entry, named the same way.
   */
  public Future<JsonObject> register(Caller caller, JsonObject body, MemberNames names) {
    String agentIdName = names.of("agentId");
    String parentIdName = names.of("parentId");
    String agentId = requiredText(body, agentIdName);
    TextRules.idProblem(agentId, TextRules.MAX_ID).ifPresent(why -> {
      throw GatewayErrors.invalid(agentIdName, why);
    });
    String name = Optional.ofNullable(text(body, "name")).orElse(agentId);
    TextRules.nameProblem(name, TextRules.MAX_NAME).ifPresent(why -> {
      throw GatewayErrors.invalid("name", why);
    });
    Optional<Classification> classification = Optional.ofNullable(text(body, "classification")).map(Classification::parse);
    Optional<String> parent = Optional.ofNullable(text(body, parentIdName)).filter(p -> !p.isBlank());
    String principalIdName = names.of("principalId");
    UUID owner = Optional.ofNullable(text(body, principalIdName)).map(s -> uuid(s, principalIdName)).orElse(caller.principalId());
    LifecycleState initial = Optional.ofNullable(text(body, "lifecycle")).map(s -> LifecycleState.parse(s)
      .orElseThrow(() -> GatewayErrors.badLifecycleState(s))).orElse(LifecycleState.INITIALIZED);
    if (!INITIAL.contains(initial)) {
      throw GatewayErrors.invalid("lifecycle", "a new entry starts Defined, Provisioning or Initialized; it becomes Running when the agent connects");
    }
    List<String> capabilities = strings(body, "capabilities");
    if (parent.isPresent() && parent.get().equals(agentId)) {
      throw GatewayErrors.invalid(parentIdName, "an agent cannot be its own parent");
    }
    Future<Void> parentKnown = parent.isEmpty() ? Future.succeededFuture()
      : store.find(parent.get()).compose(p -> p.isPresent() ? Future.<Void>succeededFuture() : Future.failedFuture(GatewayErrors.parentNotFound(parent.get())));
    return parentKnown
      .compose(v -> store.define(agentId, owner, name, capabilities, initial, classification, parent))
      .compose(created -> created ? store.find(agentId) : Future.failedFuture(GatewayErrors.agentExists(agentId)))
      .map(entry -> entry.orElseThrow().json(false, names));
  }

  /** {@code AgentQuery}: the matching agents the caller may act on (all of them, for admins), named as {@code names} spells them. */
  public Future<List<JsonObject>> query(Caller caller, AgentQuery q, MemberNames names) {
    Future<Optional<Set<UUID>>> visible = caller.isAdmin() ? Future.succeededFuture(Optional.empty())
      : access.agentPrincipalsOf(caller).map(Optional::of);
    return visible.compose(principals -> presence.all().compose(present -> {
      Set<String> online = present.stream().map(PresenceEntry::agentId).collect(Collectors.toSet());
      return store.query(q).map(entries -> {
        List<JsonObject> out = new ArrayList<>();
        for (RegistryEntry e : entries) {
          boolean connected = online.contains(e.agentId());
          boolean mayAct = principals.map(p -> p.contains(e.principalId()) || e.principalId().equals(caller.principalId())).orElse(true);
          if (mayAct && q.connected().map(c -> c == connected).orElse(true)) {
            out.add(e.json(connected, names));
          }
        }
        return out;
      });
    }));
  }

  private static String text(JsonObject body, String field) {
    Object v = body.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw GatewayErrors.invalid(field, "must be a string");
    }
    return (String) v;
  }

  private static String requiredText(JsonObject body, String field) {
    String v = text(body, field);
    if (v == null || v.isBlank()) {
      throw GatewayErrors.required(field);
    }
    return v;
  }

  private static List<String> strings(JsonObject body, String field) {
    Object v = body.getValue(field);
    if (v == null) {
      return List.of();
    }
    if (!(v instanceof JsonArray a) || a.stream().anyMatch(x -> !(x instanceof String))) {
      throw GatewayErrors.invalid(field, "must be a list of strings");
    }
    return a.stream().map(String.class::cast).toList();
  }

  private static UUID uuid(String s, String field) {
    try {
      return UUID.fromString(s);
    } catch (IllegalArgumentException e) {
      throw GatewayErrors.invalid(field, "must be a UUID, got '" + TextRules.echo(s) + "'");
    }
  }
}
