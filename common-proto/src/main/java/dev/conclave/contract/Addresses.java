package dev.conclave.contract;

/**
 * The catalogue of every event-bus address Conclave uses. No address string appears anywhere else.
 * Each entry documents who sends, who listens, and the message shape.
 *
 * <p>Addresses under {@code conclave.events.} are the ones dashboards may subscribe to over the
 * WebSocket bridge; everything else is internal.
 */
public final class Addresses {

  private Addresses() {
  }

  /**
   * Publish. A token was revoked on some node; every node adds it to its revocation list.
   * Body: the token id as a string (UUID).
   */
  public static final String AUTH_TOKEN_REVOKED = "conclave.auth.token-revoked";

  // ---- swarm coordinator -------------------------------------------------------------------

  /**
   * Publish, for dashboards. Every state change of a swarm task, agent, lease or message.
   * Body: a JSON object {@code {"kind": "task"|"agent"|"lease"|"message", "event": "<what happened>",
   * "id": "<entity id>", "at": "<ISO-8601>", "data": {...}}}; the coordinator documents each event.
   */
  public static final String SWARM_EVENTS = "conclave.events.swarm";

  // ---- gateway -----------------------------------------------------------------------------
}
