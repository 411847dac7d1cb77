package dev.conclave.swarm.protocol;

import dev.conclave.swarm.protocol.ProtocolCall.RateBucket;

import java.util.UUID;

/**
 * The protocol's rate limits (per minute): REGISTER 10 per client IP, HEARTBEAT 12 per agent, CLAIM 30
 * per agent, every other operation together 60 per agent. They are counted cluster-wide in fixed
 * one-minute windows in PostgreSQL. An agent's counters are kept per acting principal, so that a
 * principal that does not own an agent cannot use up the owner's allowance.
 */
public final class RateLimits {

  public static final int REGISTER_PER_IP = 10;
  public static final int HEARTBEAT_PER_AGENT = 12;
  public static final int CLAIM_PER_AGENT = 30;
  public static final int OTHER_PER_AGENT = 60;

  private RateLimits() {
  }

  public static RateBucket bucket(Operation op, String clientIp, String agentId, UUID principal) {
    String who = agentId + "|" + (principal == null ? "-" : principal);
    return switch (op) {
      case REGISTER -> new RateBucket("register|" + clientIp, REGISTER_PER_IP);
      case HEARTBEAT -> new RateBucket("heartbeat|" + who, HEARTBEAT_PER_AGENT);
      case CLAIM -> new RateBucket("claim|" + who, CLAIM_PER_AGENT);
      default -> new RateBucket("other|" + who, OTHER_PER_AGENT);
    };
  }
}
