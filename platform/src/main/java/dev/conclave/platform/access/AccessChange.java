package dev.conclave.platform.access;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Set;
import java.util.UUID;

/**
 * A change that may take access away from open followers, as announced to every node
 * ({@code Addresses.ACCESS_CHANGED}): the principals whose own access may have shrunk (a grant taken
 * back from them, a role removed, an agent's ownership taken from them) and the conversations whose
 * route changed (a binding created, moved or deleted). {@code everything} asks for every follower
 * to be re-checked (an agent id that passed to another principal touches followers no index names).
 */
public record AccessChange(Set<UUID> principals, Set<String> conversations, boolean everything) {

  public AccessChange {
    principals = Set.copyOf(principals);
    conversations = Set.copyOf(conversations);
  }

  public static AccessChange principal(UUID principalId) {
    return new AccessChange(Set.of(principalId), Set.of(), false);
  }

  public static AccessChange conversation(String conversationKey) {
    return new AccessChange(Set.of(), Set.of(conversationKey), false);
  }

  public static AccessChange all() {
    return new AccessChange(Set.of(), Set.of(), true);
  }

  JsonObject toJson(String origin) {
    return new JsonObject().put("origin", origin)
      .put("principals", new JsonArray(principals.stream().map(UUID::toString).sorted().toList()))
      .put("conversations", new JsonArray(conversations.stream().sorted().toList()))
      .put("everything", everything);
  }

  /** The change in an announcement; a body of another shape asks for everything to be re-checked, never for nothing. */
  static AccessChange fromJson(JsonObject json) {
    try {
      return new AccessChange(
        json.getJsonArray("principals", new JsonArray()).stream().map(p -> UUID.fromString(String.valueOf(p)))
          .collect(java.util.stream.Collectors.toSet()),
        json.getJsonArray("conversations", new JsonArray()).stream().map(String::valueOf).collect(java.util.stream.Collectors.toSet()),
        json.getBoolean("everything", false));
    } catch (RuntimeException e) {
      return all();
    }
  }
}
