package dev.conclave.gateway.lifecycle;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.routing.NodeCommand;
import dev.conclave.gateway.store.RegistryStore;
import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Changes agents' lifecycle states. A transition is checked against {@link LifecycleState}'s table
 * while the agent's row is locked, committed together with its ledger entry (in the agent's own
 * conversation), and only then published: {@code LifecycleEvent} and {@code AgentStatusChanged} on
 * {@link Addresses#LIFECYCLE_EVENTS}. What a state means for routing follows from PostgreSQL (the
 * mailbox dispatches only to Running agents, on every node); this class then nudges the node holding
 * the agent: a wake on resume, a retire order on Retiring.
 */
public final class Lifecycle {

  private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);
  private static final Set<LifecycleState> BEFORE_RUNNING = EnumSet.of(LifecycleState.DEFINED, LifecycleState.PROVISIONING, LifecycleState.INITIALIZED);

  private final Vertx vertx;
  private final LedgerWriter writer;
  private final RegistryStore registry;
  private final AgentRouter router;
  private final Terminations terminations;
  private final Clock clock;

  public Lifecycle(Vertx vertx, LedgerWriter writer, RegistryStore registry, AgentRouter router, Terminations terminations, Clock clock) {
    this.vertx = vertx;
    this.writer = writer;
    this.registry = registry;
    this.router = router;
    this.terminations = terminations;
    this.clock = clock;
  }

  /**
   * An operator's transition: refused (FAILED_PRECONDITION {@code lifecycle_transition_illegal},
   * with the reason) unless the table allows it. Retiring an agent that no node holds completes
   * at once (it has nothing in flight): the answer is then the Retiring transition, and Retired follows.
   */
  public Future<Transition> transition(String agentId, LifecycleState to, String reason, Optional<UUID> by) {
    return apply(agentId, to, reason, by, from -> from.refusal(to)).compose(t -> {
      if (t.isEmpty()) {
        return Future.failedFuture(new IllegalStateException("unreachable: a refusal fails the future"));
      }
      Transition done = t.get();
      if (to == LifecycleState.RUNNING) {
        router.wake(agentId);
      } else if (to == LifecycleState.RETIRING) {
        orderRetirement(agentId);
      }
      return Future.succeededFuture(done);
    });
  }

  /** A registered agent connected: Defined, Provisioning and Initialized become Running; other states stay. */
  public Future<Optional<Transition>> connected(String agentId) {
    return applyIf(agentId, LifecycleState.RUNNING, "the agent connected", BEFORE_RUNNING);
  }

  /**
   * A Retiring agent has nothing in flight any more: it is Retired, and what was still queued for it
   * ends with an error (a retired agent never takes work; new sends to it are refused).
   */
  public Future<Optional<Transition>> retired(String agentId, String reason) {
    return applyIf(agentId, LifecycleState.RETIRED, reason, EnumSet.of(LifecycleState.RETIRING))
      .compose(t -> t.isEmpty() ? Future.succeededFuture(t) : terminations.retired(agentId).map(n -> {
        if (n > 0) {
          LOG.info("queued requests of a retired agent ended agent={} requests={}", agentId, n);
        }
        return t;
      }));
  }

  public Future<Optional<LifecycleState>> state(String agentId) {
    return registry.find(agentId).map(e -> e.map(x -> x.lifecycle()));
  }

  private Future<Optional<Transition>> applyIf(String agentId, LifecycleState to, String reason, Set<LifecycleState> from) {
    return apply(agentId, to, reason, Optional.empty(), now -> from.contains(now) ? Optional.empty() : Optional.of("skip"))
      .recover(err -> err instanceof Skipped ? Future.succeededFuture(Optional.empty()) : Future.failedFuture(err));
  }

  /** Not an error: the agent was not in a state this automatic transition applies to. */
  private static final class Skipped extends RuntimeException {
    Skipped() {
      super(null, null, false, false);
    }
  }

  private Future<Optional<Transition>> apply(String agentId, LifecycleState to, String reason, Optional<UUID> by,
                                             java.util.function.Function<LifecycleState, Optional<String>> refusal) {
    boolean operator = by.isPresent();
    // a refusal is the unit's result, not its failure: a failing unit would make the writes it
    // shares a transaction with run again alone
    return writer.write(agentId, tx -> registry.lockState(tx.sql(), agentId).compose(current -> {
      if (current.isEmpty()) {
        return Future.succeededFuture(Outcome.refused(GatewayErrors.agentNotFound(agentId)));
      }
      LifecycleState from = current.get();
      Optional<String> refused = refusal.apply(from);
      if (refused.isPresent()) {
        return Future.succeededFuture(Outcome.refused(operator || !refused.get().equals("skip")
          ? (ConclaveException) GatewayErrors.lifecycleIllegal(agentId, from.display(), to.display(), refused.get())
          : new Skipped()));
      }
      Transition t = new Transition(agentId, from, to, reason, clock.instant());
      LedgerEntry entry = Entries.lifecycle(t.lifecycleEvent(), by, t.at());
      return registry.setState(tx.sql(), agentId, to)
        .compose(v -> tx.append(agentId, agentId, List.of(entry)))
        .map(seq -> Outcome.applied(t));
    })).compose(outcome -> {
      if (outcome.refusal() != null) {
        return Future.failedFuture(outcome.refusal());
      }
      Transition t = outcome.transition();
      publish(t);
      LOG.info("agent lifecycle agent={} from={} to={} event={} reason={}", agentId, t.from().id(), t.to().id(), t.event(), reason);
      return Future.succeededFuture(Optional.of(t));
    });
  }

  /** What one transition attempt came to: the transition, or why it was refused. */
  private record Outcome(Transition transition, RuntimeException refusal) {
    static Outcome applied(Transition t) {
      return new Outcome(t, null);
    }

    static Outcome refused(RuntimeException why) {
      return new Outcome(null, why);
    }
  }

  private void publish(Transition t) {
    vertx.eventBus().publish(Addresses.LIFECYCLE_EVENTS, t.lifecycleEvent());
    router.owner(t.agentId()).onComplete(owner -> vertx.eventBus().publish(Addresses.LIFECYCLE_EVENTS,
      t.statusChanged(owner.succeeded() && owner.result().isPresent())));
  }

  /** Tells the node holding the agent to retire it once its request in flight ends; an agent no node holds retires now. */
  private void orderRetirement(String agentId) {
    router.owner(agentId).onComplete(owner -> {
      if (owner.succeeded() && owner.result().isPresent()) {
        router.send(owner.result().get(), NodeCommand.retire(agentId, owner.result().get().epoch())).onFailure(err -> {
          LOG.info("retire order not delivered; retiring the agent here agent={} error={}", agentId, err.getMessage());
          retired(agentId, "retired while not connected");
        });
      } else {
        retired(agentId, "retired while not connected");
      }
    });
  }
}
