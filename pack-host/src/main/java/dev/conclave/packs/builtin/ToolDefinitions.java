package dev.conclave.packs.builtin;

import dev.conclave.proto.coven.ToolDefinition;

/**
 * Builds the wire definition of a built-in tool. Built-in tools need exactly one capability, the one
 * named after their pack, and leave {@code timeout_seconds} unset as coven-gateway does.
 */
public final class ToolDefinitions {

  private ToolDefinitions() {
  }

  public static ToolDefinition of(String name, String description, String inputSchemaJson, String capability) {
    return ToolDefinition.newBuilder()
      .setName(name)
      .setDescription(description)
      .setInputSchemaJson(inputSchemaJson)
      .addRequiredCapabilities(capability)
      .build();
  }
}
