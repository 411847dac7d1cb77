package dev.conclave.platform.audit;

import dev.conclave.platform.auth.Caller;

import java.util.Optional;
import java.util.UUID;

/**
 * One entry of the audit log: who (the principal, when known), what (an action such as
 * {@code grpc coven.AdminService/DeletePrincipal} or {@code auth.failed}), on which target, how it
 * ended ({@code ok}, {@code denied}, {@code failed}), a short detail (an error code, never a secret)
 * and from where (the peer's address).
 */
public record AuditEvent(Optional<UUID> actorId, String actorType, String action, String target, Outcome outcome, String detail,
                         String remote) {

  /** How the audited act ended. */
  public enum Outcome {
    OK("ok"), DENIED("denied"), FAILED("failed");

    private final String wire;

    Outcome(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }
  }

  public static AuditEvent of(Caller caller, String action, String target, Outcome outcome, String detail, String remote) {
    return new AuditEvent(Optional.of(caller.principalId()), caller.type().wire(), action, target, outcome, detail, remote);
  }

  /** An act by an operator on the machine (the command line), who holds no principal. */
  public static AuditEvent local(String actorType, String action, String target, String detail) {
    return new AuditEvent(Optional.empty(), actorType, action, target, Outcome.OK, detail, "local");
  }

  /** An act whose actor is unknown (a failed authentication). */
  public static AuditEvent anonymous(String action, String target, String detail, String remote) {
    return new AuditEvent(Optional.empty(), "", action, target, Outcome.DENIED, detail, remote);
  }
}
