package dev.conclave.packs.builtin;

import java.util.UUID;

/** The agent a built-in tool runs for: its data (todos, notes, mail) is scoped to this agent id. */
public record ToolCaller(String agentId, UUID principalId) {
}
