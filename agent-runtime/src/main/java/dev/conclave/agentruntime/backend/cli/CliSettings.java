package dev.conclave.agentruntime.backend.cli;

import java.util.Optional;

/**
 * How to start a CLI backend.
 *
 * @param executable the program, {@code claude} or {@code codex} on the PATH unless {@code --command} names another
 * @param model passed as {@code --model} when set
 */
public record CliSettings(String executable, Optional<String> model) {
}
