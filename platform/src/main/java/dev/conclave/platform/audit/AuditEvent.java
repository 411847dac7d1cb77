package dev.conclave.platform.audit;

import dev.conclave.platform.auth.Caller;

import java.util.Optional;
import java.util.UUID;

/**
 * One entry of the audit log: who (the principal, when known), what (an action such as
 * {@code grpc coven.AdminService/DeletePrincipal} or {@code auth.failed}), on which target, how it
 * ended ({@code ok}, {@code denied}, {@code failed}), a short detail (an error code, never a secret),
 * from where (the peer's address) and how many acts it stands for (1, except for sampled failed
 * authentications, {@link FailedLogins}).
 */
public record AuditEvent(Optional<UUID> actorId, String actorType, String action, String target, Outcome outcome, String detail,
                         String remote, int count) {

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
    return new AuditEvent(Optional.of(caller.principalId()), caller.type().wire(), action, target, outcome, detail, remote, 1);
  }

  /** An act by an operator on the machine (the command line), who holds no principal. */
  public static AuditEvent local(String actorType, String action, String target, String detail) {
    return new AuditEvent(Optional.empty(), actorType, action, target, Outcome.OK, detail, "local", 1);
  }

  /** {@code count} acts alike whose actor is unknown (failed authentications). */
  public static AuditEvent anonymous(String action, String target, String detail, String remote, int count) {
    return new AuditEvent(Optional.empty(), "", action, target, Outcome.DENIED, detail, remote, count);
  }
}
