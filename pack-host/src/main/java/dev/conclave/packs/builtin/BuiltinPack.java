package dev.conclave.packs.builtin;

import java.util.List;

/** A built-in pack: an id such as {@code builtin:notes}, the capability its tools need, and the tools. */
public record BuiltinPack(String packId, String capability, List<BuiltinTool> tools) {

  public BuiltinPack {
    tools = List.copyOf(tools);
  }
}
