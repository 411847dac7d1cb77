package dev.conclave.swarm.security;

import dev.conclave.swarm.errors.SwarmErrors;
import io.vertx.ext.web.RoutingContext;

import java.util.Optional;

/**
 * The agent an HMAC-signed request was signed by; such a request acts only as that agent. For the
 * protocol's operations the comparison is swarm.dispatch's (the signer goes in the dispatch options,
 * so that it answers after the operation's size, format and range checks, ErrorOrderTest);
 * {@link #requireSelf} serves the coordinator's other routes (a task's conversation).
 */
public final class SignedAgent {

  private static final String KEY = "swarm.signedAgent";

  private SignedAgent() {
  }

  static void set(RoutingContext ctx, String agentId) {
    ctx.put(KEY, agentId);
  }

  public static Optional<String> of(RoutingContext ctx) {
    return Optional.ofNullable(ctx.get(KEY));
  }

  /** Fails when the request is signed by an agent other than {@code agentId}. */
  public static void requireSelf(RoutingContext ctx, String agentId) {
    Optional<String> signer = of(ctx);
    if (signer.isPresent() && !signer.get().equals(agentId)) {
      throw SwarmErrors.agentMismatch(signer.get(), agentId);
    }
  }
}
