package dev.conclave.agent;

import java.util.Optional;

/**
 * Context the gateway pushes into the agent mid-turn ({@code InjectContext}; feature {@link Feature#INJECTION}).
 *
 * @param source who injected it, for example {@code system} or {@code pack:elevenlabs}
 */
public record Injection(String injectionId, String content, InjectionPriority priority, Optional<String> source) {
}
