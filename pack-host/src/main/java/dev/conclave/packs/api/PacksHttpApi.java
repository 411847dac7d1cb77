package dev.conclave.packs.api;

import dev.conclave.packs.builtin.BuiltinPack;
import dev.conclave.packs.builtin.Builtins;
import dev.conclave.packs.registry.ToolRegistry;
import dev.conclave.packs.store.ToolCallLog;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.packs.PackErrors;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.packs.ToolEntry;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The pack host's HTTP API under {@value #BASE}: the packs connected anywhere in the cluster with
 * their tools, the built-in packs, and (for admins) an agent's recent tool calls and the tools an
 * agent with given capabilities gets (the Welcome's rule, {@link PackTools#available}).
 */
public final class PacksHttpApi {

  static final String BASE = "/api/v1/packs";
  static final int MAX_CALLS = 500;
  /** The most capabilities one tools query may name (a registration's capabilities are far fewer). */
  static final int MAX_CAPABILITIES = 100;
  private static final Pattern CAPABILITY = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

  private final ToolRegistry registry;
  private final Builtins builtins;
  private final ToolCallLog calls;
  private final PackTools packTools;

  public PacksHttpApi(ToolRegistry registry, Builtins builtins, ToolCallLog calls, PackTools packTools) {
    this.registry = registry;
    this.builtins = builtins;
    this.calls = calls;
    this.packTools = packTools;
  }

  public void mount(HttpRoutes routes) {
    routes.get(BASE, Audience.MEMBERS, Resource.NONE, (caller, ctx) -> registry.packs(Optional.empty())
      .compose(packs -> registry.builtinEntries().map(entries -> {
        JsonArray live = new JsonArray();
        packs.forEach(p -> live.add(new JsonObject().put("packId", p.packId()).put("version", p.version()).put("node", p.node())
          .put("tools", new JsonArray(p.tools())).put("registeredAt", p.registeredAt().toString())));
        return new JsonObject().put("packs", live).put("builtins", builtinPacks(entries));
      })));
    routes.get(BASE + "/calls/:agentId", Audience.ADMINS, Resource.NONE, (caller, ctx) ->
      calls.recentOf(ctx.pathParam("agentId"), parseLimit(ctx.queryParams().get("limit"))).map(list -> new JsonObject().put("calls", list)));
    routes.get(BASE + "/tools", Audience.ADMINS, Resource.NONE, (caller, ctx) -> tools(capabilities(ctx.queryParams().get("capabilities"))));
  }

  /**
   * {@code {"capabilities"?: [...], "tools": [{name, packId, description, requiredCapabilities, timeoutSeconds}]}}:
   * the live tools an agent with these capabilities gets in its Welcome (built-ins and live packs, by
   * name), or every live tool when no capabilities are named.
   */
  private io.vertx.core.Future<JsonObject> tools(Optional<Set<String>> capabilities) {
    return registry.packs(Optional.empty()).compose(packs -> registry.builtinEntries().compose(entries ->
      packTools.available(capabilities.orElse(EVERY)).map(defs -> {
      Map<String, String> packOf = new HashMap<>();
      entries.forEach(e -> packOf.put(e.name(), e.packId()));
      packs.forEach(p -> p.tools().forEach(t -> packOf.put(t, p.packId())));
      JsonArray out = new JsonArray();
      for (ToolDefinition d : defs) {
        out.add(new JsonObject().put("name", d.getName()).put("packId", packOf.get(d.getName())).put("description", d.getDescription())
          .put("requiredCapabilities", new JsonArray(d.getRequiredCapabilitiesList()))
          .put("timeoutSeconds", d.getTimeoutSeconds() <= 0 ? 30 : d.getTimeoutSeconds()));
      }
      JsonObject answer = new JsonObject();
      capabilities.ifPresent(c -> answer.put("capabilities", new JsonArray(List.copyOf(new TreeSet<>(c)))));
      return answer.put("tools", out);
    })));
  }

  /**
   * The built-in packs, this pack host's first in their order, then those other roles put in the
   * registry (the gateway's builtin:admin and builtin:ui), each with its capability and tools.
   */
  private JsonArray builtinPacks(List<ToolEntry> entries) {
    Map<String, JsonObject> byPack = new java.util.LinkedHashMap<>();
    for (BuiltinPack b : builtins.packs()) {
      byPack.put(b.packId(), new JsonObject().put("packId", b.packId()).put("capability", b.capability())
        .put("tools", new JsonArray(b.tools().stream().map(t -> t.name()).toList())));
    }
    entries.stream().filter(e -> !byPack.containsKey(e.packId()) || e.onGateway()).sorted(java.util.Comparator.comparing(ToolEntry::packId))
      .forEach(e -> byPack.computeIfAbsent(e.packId(), id -> new JsonObject().put("packId", id)
          .put("capability", e.definition().getRequiredCapabilitiesCount() == 0 ? "" : e.definition().getRequiredCapabilities(0))
          .put("tools", new JsonArray()))
        .getJsonArray("tools").add(e.name()));
    return new JsonArray(List.copyOf(byPack.values()));
  }

  /** {@code capabilities=a,b} (empty: none at all); absent: no filter. */
  static Optional<Set<String>> capabilities(String value) {
    if (value == null) {
      return Optional.empty();
    }
    List<String> names = Arrays.stream(value.split(",")).map(String::strip).filter(c -> !c.isEmpty()).toList();
    if (names.size() > MAX_CAPABILITIES) {
      throw PackErrors.capabilitiesInvalid("at most " + MAX_CAPABILITIES + " capabilities, got " + names.size());
    }
    for (String name : names) {
      if (!CAPABILITY.matcher(name).matches()) {
        throw PackErrors.capabilitiesInvalid("'" + name + "' is not a capability: 1 to 64 letters, digits, '_', '.', ':' or '-'");
      }
    }
    return Optional.of(Set.copyOf(names));
  }

  /** Every capability there is: what "no filter" means to {@link PackTools#available}. */
  private static final Set<String> EVERY = new AbstractSet<>() {
    @Override
    public boolean contains(Object o) {
      return o instanceof String;
    }

    @Override
    public Iterator<String> iterator() {
      return Collections.emptyIterator();
    }

    @Override
    public int size() {
      return 0;
    }
  };

  private static int parseLimit(String value) {
    if (value == null) {
      return 50;
    }
    try {
      int n = Integer.parseInt(value);
      if (n < 1 || n > MAX_CALLS) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw ConclaveException.invalid("limit_invalid", "limit must be 1 to " + MAX_CALLS + ", got '" + value + "'");
    }
  }
}
