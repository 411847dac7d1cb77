package dev.conclave.platform.server;

import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.access.RouteTable;
import dev.conclave.platform.admission.ConnectionGuard;
import dev.conclave.platform.audit.AuditEvent;
import dev.conclave.platform.audit.AuditLog;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.errors.Failures;

/**
 * What the edge shares with every service it serves: the hand-over of verified callers from the
 * gRPC gate, the table of declared routes and their audiences, the audit log every change and
 * every refusal is written to, the bounded decoding of gRPC messages, the node's bounds on what
 * one principal holds open (gRPC calls and connections, WebSockets), and the access re-checks of
 * what is open ({@link LiveAccess}: a grant taken back ends the followers that relied on it).
 */
public record EdgeSecurity(CallerHandoff callers, RouteTable routes, AuditLog audit, GrpcMessages messages, ConnectionGuard guard,
                           LiveAccess liveAccess) {

  public static EdgeSecurity create(AuditLog audit, int maxMessageBytes, ConnectionGuard guard, LiveAccess liveAccess) {
    return new EdgeSecurity(new CallerHandoff(), new RouteTable(), audit, new GrpcMessages(maxMessageBytes), guard, liveAccess);
  }

  /** Records how an authenticated call ended; refusals ({@code PERMISSION_DENIED}, {@code UNAUTHENTICATED}) as denied. */
  public void audit(Caller caller, String action, String target, Throwable failure, String remote) {
    AuditEvent.Outcome outcome = AuditEvent.Outcome.OK;
    String detail = "";
    if (failure != null) {
      ConclaveException e = Failures.classify(failure);
      outcome = e.kind() == ErrorKind.PERMISSION_DENIED || e.kind() == ErrorKind.UNAUTHENTICATED
        ? AuditEvent.Outcome.DENIED : AuditEvent.Outcome.FAILED;
      detail = e.code();
    }
    audit.record(AuditEvent.of(caller, action, target, outcome, detail, remote));
  }

  /** Records a lifecycle change that ended normally, with why it happened (a disconnect and its reason). */
  public void lifecycle(Caller caller, String action, String target, String why, String remote) {
    audit.record(AuditEvent.of(caller, action, target, AuditEvent.Outcome.OK, why, remote));
  }

  /** Records a call refused before any caller was known (no, or bad, credentials): counted, and sampled into the audit log. */
  public void authenticationFailed(String path, ConclaveException failure, String remote) {
    audit.authenticationFailed(path, failure.code(), remote);
  }
}
