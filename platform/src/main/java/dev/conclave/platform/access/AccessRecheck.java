package dev.conclave.platform.access;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One re-check of open followers ({@link LiveAccess}): the followers' questions, each asked once
 * however many followers share it, in statements of {@value #BATCH}; each follower judged on the
 * roles its caller still holds (those of its credentials that its principal has now) and the rule's
 * verdict; those that lost access handed to {@code lose}.
 */
final class AccessRecheck {

  private static final Logger LOG = LoggerFactory.getLogger(AccessRecheck.class);
  /** Questions per statement: a node with many followers re-checks them in a few round trips, none of them large. */
  static final int BATCH = 500;

  /** Ends a follower that lost access; completes once it was told. */
  interface Loser {
    Future<Void> lose(LiveAccess.Watch watch, ConclaveException why);
  }

  /** A follower and the target it was asked about (it may retarget while the statement runs: then it is not judged). */
  private record Asked(LiveAccess.Watch watch, AccessTarget target) {
  }

  private final AgentAccess rule;
  private final Counter failures;

  AccessRecheck(AgentAccess rule, Counter failures) {
    this.rule = rule;
    this.failures = failures;
  }

  /** Re-checks {@code watches}; completes once those that lost access were told. Never fails (a failure is logged and counted). */
  Future<Void> run(Collection<LiveAccess.Watch> watches, Loser loser) {
    Map<AgentAccess.Question, List<Asked>> asked = new LinkedHashMap<>();
    for (LiveAccess.Watch w : watches) {
      if (w.ended()) {
        continue;
      }
      AccessTarget t = w.target;
      asked.computeIfAbsent(new AgentAccess.Question(w.caller.principalId(), t.agentId().orElse(null), t.conversationKey().orElse(null)),
        k -> new ArrayList<>()).add(new Asked(w, t));
    }
    if (asked.isEmpty()) {
      return Future.succeededFuture();
    }
    List<AgentAccess.Question> questions = new ArrayList<>(asked.keySet());
    List<Future<Void>> told = new ArrayList<>();
    Future<Void> chain = Future.succeededFuture();
    for (int from = 0; from < questions.size(); from += BATCH) {
      List<AgentAccess.Question> batch = questions.subList(from, Math.min(questions.size(), from + BATCH));
      chain = chain.compose(v -> rule.check(batch).map(verdicts -> {
        for (int i = 0; i < batch.size(); i++) {
          for (Asked a : asked.get(batch.get(i))) {
            if (a.watch().target == a.target()) {
              Optional<ConclaveException> lost = lost(a.watch().caller, a.target(), verdicts.get(i));
              if (lost.isPresent()) {
                told.add(loser.lose(a.watch(), lost.get()));
              }
            }
          }
        }
        return null;
      }));
    }
    return chain.recover(err -> {
      failures.increment();
      LOG.warn("access: re-check of open followers failed; the next change or periodic re-check tries again followers={} error={}",
        watches.size(), err.toString());
      return Future.succeededFuture();
    }).compose(v -> Future.join(told).<Void>mapEmpty().otherwiseEmpty());
  }

  /**
   * Why {@code caller} may no longer follow {@code target}, given the rule's verdict; empty when it
   * still may. The caller keeps only the roles its principal still holds: a role taken away counts
   * at once, though the credentials still name it.
   */
  static Optional<ConclaveException> lost(Caller caller, AccessTarget target, AgentAccess.Verdict verdict) {
    Set<String> roles = new HashSet<>(caller.roles());
    roles.retainAll(verdict.roles());
    Caller now = new Caller(caller.principalId(), caller.type(), roles, caller.tokenId(), caller.expiresAt(), caller.purpose(),
      caller.agentScope());
    try {
      target.audience().check(now, "following " + target.name());
    } catch (ConclaveException e) {
      return Optional.of(AuthErrors.accessRevoked(target.name(), e.detail()));
    }
    if (target.namesResource() && !now.isAdmin() && !verdict.allowed()) {
      return Optional.of(AuthErrors.accessRevoked(target.name(),
        "only its agent's owner, principals granted access to that agent and admins may follow it"));
    }
    return Optional.empty();
  }
}
