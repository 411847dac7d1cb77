package dev.conclave.packs.builtin;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The built-in packs this node runs, and their tools by name. */
public final class Builtins {

  private final List<BuiltinPack> packs;
  private final Map<String, BuiltinTool> byName = new HashMap<>();

  public Builtins(List<BuiltinPack> packs) {
    this.packs = List.copyOf(packs);
    for (BuiltinPack pack : packs) {
      for (BuiltinTool tool : pack.tools()) {
        if (byName.put(tool.name(), tool) != null) {
          throw new IllegalStateException("built-in tool defined twice: " + tool.name());
        }
      }
    }
  }

  public List<BuiltinPack> packs() {
    return packs;
  }

  public Optional<BuiltinTool> tool(String name) {
    return Optional.ofNullable(byName.get(name));
  }
}
