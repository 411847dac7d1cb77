package dev.conclave.agentruntime.backend;

import dev.conclave.agentruntime.gate.ToolGate;
import io.vertx.core.Vertx;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What every backend gets from the runtime.
 *
 * @param workdir the agent's working directory: CLIs run there, the policy judges paths against it
 * @param gate the tool gate every tool call passes
 * @param systemPrompt the configured system prompt, plan instruction included in plan mode
 * @param packTools the gateway's pack tools and secrets for the current session
 * @param injections context waiting for the next turn
 * @param cancelGrace how long a cancelled child process gets after SIGTERM before SIGKILL
 */
public record BackendContext(Vertx vertx, Path workdir, ToolGate gate, String systemPrompt, PackTools packTools,
                             InjectionQueue injections, Duration cancelGrace) {
}
