package dev.conclave.e2e.faults;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Invariant (c): one request in flight per agent at every moment, checked twice.
 *
 * <p>From the ledger's order. Within a conversation, sequence numbers are commit order (they are
 * allocated under the conversation row's lock), and a request's agent events can only be stored
 * while it is dispatched (each batch checks it is still in flight for the session's epoch). So
 * between the first event a request got from its agent and its terminal event, no event of another
 * request of that conversation's agent may appear, except the ending of a request that was never
 * dispatched (a queued request cancelled or ended by the gateway: its mailbox row has no
 * {@code dispatched_at}). Load conversations belong to one agent each, so this is per agent.
 *
 * <p>Why not the mailbox's {@code dispatched_at}/{@code finished_at}: both are PostgreSQL's
 * {@code now()}, the start time of the writing transaction. Dispatches and endings are units of the
 * group-committing ledger writer, and after a node dies another node ends its requests, so a
 * dispatch's transaction may begin before the transaction that ended the previous request and still
 * run its dispatch after that commit: intervals would overlap without any violation. The partial
 * unique index {@code requests_one_in_flight} is what enforces the rule; the ledger shows its effect.
 *
 * <p>From the agents: no session was handed a request while it still held an unanswered one.
 */
final class OneInFlight {

  static final String NAME = "one-in-flight-per-agent";

  private OneInFlight() {
  }

  static Invariant check(GatewayFacts f) {
    Invariant inv = new Invariant(NAME);
    for (Map.Entry<String, Map<Long, GatewayLedger.Event>> conversation : f.byConversation.entrySet()) {
      inv.count("conversations");
      List<GatewayLedger.Event> events = new ArrayList<>(conversation.getValue().values());
      events.sort(Comparator.comparingLong(GatewayLedger.Event::seq));
      Optional<GatewayLedger.Event> open = Optional.empty();
      Set<String> ended = new HashSet<>();
      for (GatewayLedger.Event e : events) {
        if (e.requestId().isEmpty() || e.kind().equals("inbound")) {
          continue;
        }
        String id = e.requestId().get();
        boolean terminal = GatewayOps.terminal(e.kind());
        if (ended.contains(id)) {
          inv.violation(conversation.getKey() + ": " + e.kind() + " of request " + id + " at " + e.seq() + " after the request had ended");
          continue;
        }
        if (open.isPresent() && !open.get().requestId().get().equals(id)) {
          boolean neverDispatched = terminal && Optional.ofNullable(f.requestsById.get(id)).map(r -> r.dispatchedAt().isEmpty()).orElse(false);
          if (!neverDispatched) {
            inv.violation(conversation.getKey() + ": " + e.kind() + " of request " + id + " at " + e.seq() + " while request "
              + open.get().requestId().get() + " was in flight (since " + open.get().seq() + ")");
          }
        } else if (open.isEmpty() && !terminal) {
          open = Optional.of(e);
          inv.count("requestsServed");
        }
        if (terminal) {
          ended.add(id);
          if (open.isPresent() && open.get().requestId().get().equals(id)) {
            open = Optional.empty();
          }
        }
      }
    }
    for (Op d : f.deliveries) {
      inv.count("deliveries");
      if (GatewayFacts.num(d, GatewayOps.IN_FLIGHT) > 0) {
        inv.violation(d.str(GatewayOps.AGENT) + " session " + d.str(GatewayOps.SESSION) + " was handed request " + d.value() + " while "
          + d.str(GatewayOps.IN_FLIGHT) + " other(s) were unanswered");
      }
    }
    return inv;
  }
}
