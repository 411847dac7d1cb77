package dev.conclave.agent.pack;

import dev.conclave.agent.Endpoint;

import java.util.List;
import java.util.Objects;

/**
 * What the gateway made of the pack's manifest on one registration.
 *
 * @param packId the pack id the gateway registered
 * @param endpoint the gateway endpoint the pack is registered with
 * @param liveTools the pack's tools that agents can call now
 * @param rejectedTools tools another pack or a built-in tool already owns; the gateway never
 *     routes calls of these to this pack
 */
public record PackRegistration(String packId, Endpoint endpoint, List<String> liveTools, List<String> rejectedTools) {

  public PackRegistration {
    Objects.requireNonNull(packId, "packId");
    Objects.requireNonNull(endpoint, "endpoint");
    liveTools = List.copyOf(liveTools);
    rejectedTools = List.copyOf(rejectedTools);
  }

  /** Whether agents can call {@code toolName} of this pack now. */
  public boolean isLive(String toolName) {
    return liveTools.contains(toolName);
  }
}
