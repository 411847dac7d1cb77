package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.model.AgentRecord;
import dev.conclave.gateway.model.LifecycleState;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.presence.PresenceEntry;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.routing.NodeCommand;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.platform.access.AccessChange;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.auth.CapabilityGrants;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.SessionTokens;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.validation.TextRules;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Context;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Registers an agent: checks the request and the principal, refuses an id that another principal
 * holds live or owns (an agent id, its conversation and its secrets belong to the principal that
 * registered it first), records a new epoch, ends requests left in flight by older sessions, and claims the
 * agent's presence (superseding the older session wherever it is); the agent's Welcome is made
 * meanwhile. One per node; it keeps no state.
 */
final class Registration {

  private static final Logger LOG = LoggerFactory.getLogger(Registration.class);

  /**
   * A successful registration: what the session keeps for its lifetime, and its MCP token, which the
   * session ends when it ends.
   */
  record Registered(AgentRecord agent, PresenceEntry presence, Principal principal, SessionTokens.SessionToken mcpToken) {
  }

  /**
   * A registration and the agent's Welcome, still being made. The session sends the Welcome and lets
   * go of it: it carries the agent's MCP token and secrets, which an idle session has no need to hold.
   */
  record Admitted(Registered registered, Future<ServerMessage> welcome) {
  }

  private final PrincipalStore principals;
  private final AgentStore agents;
  private final Lifecycle lifecycle;
  private final Presence presence;
  private final AgentRouter router;
  private final Terminations terminations;
  private final LocalSessions sessions;
  private final Welcomes welcomes;
  private final String nodeId;
  private final Clock clock;
  private final LiveAccess access;
  private final RegistrationGate gate;

  Registration(PrincipalStore principals, AgentStore agents, Lifecycle lifecycle, Presence presence, AgentRouter router,
               Terminations terminations, LocalSessions sessions, Welcomes welcomes, String nodeId, Clock clock, LiveAccess access,
               RegistrationGate gate) {
    this.access = access;
    this.gate = gate;
    this.principals = principals;
    this.agents = agents;
    this.lifecycle = lifecycle;
    this.presence = presence;
    this.router = router;
    this.terminations = terminations;
    this.sessions = sessions;
    this.welcomes = welcomes;
    this.nodeId = nodeId;
    this.clock = clock;
  }

  /**
   * {@link #perform} when this registration's turn comes at the node's edge ({@link RegistrationGate}),
   * on the session's {@code context}; skipped if the stream is {@code gone} by then. The turn ends
   * with the registration's writes; the
   * Welcome is put together outside it (holding the turn for it cut a 3,000-agent storm's
   * registrations to a few per second: it reads the cluster's tool map, slow while the cluster
   * repartitions after losing a node).
   */
  Future<Admitted> performInTurn(Context context, BooleanSupplier gone, Caller caller, RegisterAgent request) {
    return gate.admit(context, gone, () -> perform(caller, request));
  }

  /** Validation failures come back as ConclaveException; refusals as RegistrationRejected. */
  Future<Admitted> perform(Caller caller, RegisterAgent request) {
    String agentId = request.getAgentId();
    if (agentId.isBlank()) {
      return Future.failedFuture(GatewayErrors.missingAgentId());
    }
    Optional<String> badId = TextRules.idProblem(agentId, TextRules.MAX_ID);
    if (badId.isPresent()) {
      return Future.failedFuture(GatewayErrors.badAgentId(badId.get()));
    }
    Optional<String> badName = TextRules.nameProblem(request.getName(), TextRules.MAX_NAME);
    if (badName.isPresent()) {
      return Future.failedFuture(GatewayErrors.badAgentName(badName.get()));
    }
    Optional<String> badFeatures = featuresProblem(request.getProtocolFeaturesList());
    if (badFeatures.isPresent()) {
      return Future.failedFuture(GatewayErrors.invalid("RegisterAgent.protocol_features", badFeatures.get()));
    }
    // the three reads are independent, so they run at once (after a node's death every round trip
    // counts, and presence may wait for the cluster to repartition); they are judged in order, and
    // only then does anything write
    Future<Optional<Principal>> found = principals.find(caller.principalId());
    Future<Optional<PresenceEntry>> current = presence.get(agentId);
    Future<Optional<LifecycleState>> state = lifecycle.state(agentId);
    Future<Set<String>> granted = principals.capabilities().of(caller.principalId());
    return Future.all(found, current, state, granted)
      .compose(v -> checkPrincipal(caller, found.result()))
      .compose(principal -> checkNotHeldByOther(agentId, principal, current.result()).map(principal))
      .compose(principal -> checkNotRetired(agentId, state.result()).map(principal))
      .compose(principal -> agents.register(principal.id(), granted(request, granted.result()), caller.isAdmin())
        .compose(agent -> agent.isPresent()
          ? tookOver(agent.get()).map(v -> new Object[] {principal, agent.get().agent()})
          : Future.failedFuture(new RegistrationRejected(GatewayErrors.agentIdOwned(agentId), suggestId(agentId)))))
      .compose(pair -> {
        Principal principal = (Principal) pair[0];
        AgentRecord agent = (AgentRecord) pair[1];
        // the Welcome is made while the registration completes; it is sent only once it has
        SessionTokens.SessionToken mcp = welcomes.mcpToken(agent, principal);
        Future<ServerMessage> welcome = welcomes.issue(agent, principal, mcp);
        // one lane of the ledger writer, in this order: both usually share one transaction
        Future<?> connected = lifecycle.connected(agentId);
        Future<?> olderEnded = endOlderInFlight(agent);
        return Future.all(connected, olderEnded)
          .compose(v -> claimPresence(agent))
          .onFailure(err -> mcp.end())
          .map(presence -> new Admitted(new Registered(agent, presence, principal, mcp), welcome));
      });
  }

  /**
   * When the agent id changed hands (an admin took it over, or its principal was gone), whoever followed
   * the agent through the former principal (its owner, its grantees) may no longer: the open followers
   * are judged again before the new session takes the agent.
   */
  private Future<Void> tookOver(AgentStore.Registered registered) {
    if (registered.formerPrincipal().isEmpty()) {
      return Future.succeededFuture();
    }
    return access.announce(AccessChange.all());
  }

  /**
   * The registration with the capabilities the agent gets: what it declared, less any capability
   * that needs a grant its principal does not hold. A declaration narrows an agent's tools, never
   * widens them; everything after this (presence, the Welcome's tools, the MCP token's scope, each
   * tool call) sees only these.
   */
  private static RegisterAgent granted(RegisterAgent request, Set<String> granted) {
    Set<String> effective = CapabilityGrants.effective(request.getCapabilitiesList(), granted);
    if (effective.size() == request.getCapabilitiesCount()) {
      return request;
    }
    LOG.info("agent declared capabilities it was not granted; they are left out agent={} declared={} granted={}",
      request.getAgentId(), request.getCapabilitiesList(), granted);
    return request.toBuilder().clearCapabilities().addAllCapabilities(effective).build();
  }

  private Future<Principal> checkPrincipal(Caller caller, Optional<Principal> found) {
    if (found.isEmpty()) {
      return Future.failedFuture(new RegistrationRejected(GatewayErrors.principalNotApproved("deleted"), ""));
    }
    Principal p = found.get();
    if (!p.approved()) {
      return Future.failedFuture(new RegistrationRejected(GatewayErrors.principalNotApproved(p.status().wire()), ""));
    }
    try {
      Audience.AGENTS.check(caller, "coven.CovenControl/AgentStream");
    } catch (ConclaveException e) {
      return Future.failedFuture(new RegistrationRejected(e, ""));
    }
    return Future.succeededFuture(p);
  }

  private Future<Void> checkNotHeldByOther(String agentId, Principal principal, Optional<PresenceEntry> current) {
    if (current.isPresent() && !current.get().principalId().equals(principal.id()) && live(current.get())) {
      return Future.failedFuture(new RegistrationRejected(GatewayErrors.agentIdTaken(agentId), suggestId(agentId)));
    }
    return Future.succeededFuture();
  }

  /**
   * A Retired agent may not register again. One that reconnects while Retiring has nothing in
   * flight (its old session's request ends with that session), so its retirement completes now.
   */
  private Future<Void> checkNotRetired(String agentId, Optional<LifecycleState> state) {
    if (state.isEmpty() || (state.get() != LifecycleState.RETIRED && state.get() != LifecycleState.RETIRING)) {
      return Future.succeededFuture();
    }
    Future<?> settled = state.get() == LifecycleState.RETIRING
      ? lifecycle.retired(agentId, "reconnected while retiring, with nothing in flight")
      : Future.succeededFuture();
    return settled.compose(v -> Future.failedFuture(new RegistrationRejected(GatewayErrors.agentRetired(agentId), "")));
  }

  /** An entry of this node is live only if the session still exists here. */
  private boolean live(PresenceEntry entry) {
    if (!entry.node().equals(nodeId)) {
      return true;
    }
    return sessions.get(entry.agentId()).filter(s -> s.epoch() == entry.epoch()).isPresent();
  }

  private Future<Void> endOlderInFlight(AgentRecord agent) {
    return terminations.disconnected(agent.agentId(), agent.epoch() - 1).mapEmpty();
  }

  private Future<PresenceEntry> claimPresence(AgentRecord agent) {
    PresenceEntry mine = new PresenceEntry(agent.agentId(), agent.principalId(), nodeId, agent.epoch(),
      agent.name(), agent.capabilities(), agent.features(), agent.metadata(), clock.instant());
    return presence.claim(mine).map(previous -> {
      previous.filter(p -> !p.sameSession(mine)).ifPresent(p -> router.send(p, NodeCommand.supersede(p.agentId(), p.epoch()))
        .onFailure(err -> LOG.debug("supersede not delivered agent={} node={} error={}", p.agentId(), p.node(), err.getMessage())));
      return mine;
    });
  }

  static final int MAX_FEATURES = 32;
  static final int MAX_FEATURE = 64;

  /**
   * Why the protocol features are not acceptable: they are stored, kept in presence and logged, so
   * there are at most {@link #MAX_FEATURES}, each a plain name (unknown ones pass, for features yet to come).
   */
  static Optional<String> featuresProblem(java.util.List<String> features) {
    if (features.size() > MAX_FEATURES) {
      return Optional.of("may name at most " + MAX_FEATURES + " features, got " + features.size());
    }
    for (String f : features) {
      if (f.isEmpty() || f.length() > MAX_FEATURE) {
        return Optional.of("entries must be 1 to " + MAX_FEATURE + " characters, got " + f.length());
      }
      if (!f.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.')) {
        return Optional.of("entries may contain only ASCII letters, digits, '_', '-' and '.', got '" + TextRules.echo(f) + "'");
      }
    }
    return Optional.empty();
  }

  private static String suggestId(String agentId) {
    byte[] b = new byte[2];
    new SecureRandom().nextBytes(b);
    String base = agentId.length() > 190 ? agentId.substring(0, 190) : agentId;
    return base + "-" + HexFormat.of().formatHex(b);
  }
}
