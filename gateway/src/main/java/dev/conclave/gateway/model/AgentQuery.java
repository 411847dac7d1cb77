package dev.conclave.gateway.model;

import dev.conclave.gateway.GatewayErrors;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Seed 004's {@code AgentQuery}: every field optional, all given fields must match. Classification
 * parts compare case-insensitively; {@code capabilities} must all be among the agent's capabilities
 * (those it registered with, plus its classification's Capability); {@code lifecycle} is the lifecycle
 * state; {@code status} is {@code connected} or {@code offline}.
 */
public record AgentQuery(
  Optional<String> primaryType,
  Optional<String> domain,
  List<String> capabilities,
  Optional<String> role,
  Optional<LifecycleState> lifecycle,
  Optional<String> security,
  Optional<Boolean> connected,
  Optional<String> parentId) {

  /** The fields, named in camelCase; {@link #fields} names them for a surface. */
  private static final List<String> FIELDS = List.of("primaryType", "domain", "capabilities", "role", "lifecycle", "security", "status", "parentId");

  /** The fields as {@code names} spells them: HTTP's query parameters, the session protocol's {@code agent_query}. */
  public static Set<String> fields(MemberNames names) {
    return FIELDS.stream().map(names::of).collect(Collectors.toUnmodifiableSet());
  }

  /** From a JSON object (the session protocol's {@code agent_query}, snake_case); unknown fields are refused. */
  public static AgentQuery fromJson(JsonObject q) {
    Set<String> fields = fields(MemberNames.SNAKE_CASE);
    for (String field : q.fieldNames()) {
      if (!fields.contains(field)) {
        throw GatewayErrors.invalid("agent_query." + field, "is not an AgentQuery field; use " + String.join(", ", fields.stream().sorted().toList()));
      }
    }
    Object caps = q.getValue("capabilities");
    List<String> capabilities = new ArrayList<>();
    if (caps instanceof JsonArray a) {
      for (Object c : a) {
        if (!(c instanceof String s)) {
          throw GatewayErrors.invalid("agent_query.capabilities", "must be a list of strings");
        }
        capabilities.add(s);
      }
    } else if (caps instanceof String s) {
      capabilities.addAll(split(s));
    } else if (caps != null) {
      throw GatewayErrors.invalid("agent_query.capabilities", "must be a list of strings");
    }
    return of(MemberNames.SNAKE_CASE, field -> {
      Object v = q.getValue(field);
      if (v != null && !(v instanceof String)) {
        throw GatewayErrors.invalid("agent_query." + field, "must be a string");
      }
      return (String) v;
    }, capabilities);
  }

  /** From HTTP query parameters (camelCase; {@code capabilities} comma-separated). */
  public static AgentQuery fromParams(Map<String, String> params) {
    return of(MemberNames.CAMEL_CASE, params::get, Optional.ofNullable(params.get("capabilities")).map(AgentQuery::split).orElse(List.of()));
  }

  private static AgentQuery of(MemberNames names, Function<String, String> get, List<String> capabilities) {
    Optional<LifecycleState> lifecycle = text(get.apply("lifecycle")).map(s -> LifecycleState.parse(s)
      .orElseThrow(() -> GatewayErrors.badLifecycleState(s)));
    Optional<Boolean> connected = text(get.apply("status")).map(s -> switch (s.toLowerCase()) {
      case "connected", "online" -> true;
      case "offline", "disconnected" -> false;
      default -> throw GatewayErrors.invalid("status", "must be 'connected' or 'offline', got '" + s + "'");
    });
    return new AgentQuery(text(get.apply(names.of("primaryType"))), text(get.apply("domain")), capabilities, text(get.apply("role")),
      lifecycle, text(get.apply("security")), connected, text(get.apply(names.of("parentId"))));
  }

  private static Optional<String> text(String s) {
    return Optional.ofNullable(s).map(String::trim).filter(v -> !v.isEmpty());
  }

  private static List<String> split(String s) {
    return java.util.Arrays.stream(s.split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList();
  }
}
