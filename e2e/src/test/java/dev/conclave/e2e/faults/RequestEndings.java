package dev.conclave.e2e.faults;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Invariant (a): every accepted request ends exactly once. The ledger has exactly one terminal
 * event (done, error or cancelled) for it, the mailbox row agrees, and every follower that followed
 * its conversation past that event saw the ending exactly once. Reports how many ended done, with a
 * recoverable error (what the gateway writes for a request whose agent or node was lost), with
 * another error, or cancelled; only the exactly-once rule fails the invariant.
 */
final class RequestEndings {

  static final String NAME = "requests-end-once";

  private RequestEndings() {
  }

  static Invariant check(GatewayFacts f) {
    Invariant inv = new Invariant(NAME);
    Set<String> accepted = new HashSet<>();
    for (GatewayFacts.Send s : f.sends) {
      if (s.is(Op.Type.OK)) {
        f.acceptedRequest(s).ifPresent(accepted::add);
      }
    }
    List<View> views = f.views.entrySet().stream().flatMap(e -> View.of(e.getKey(), e.getValue()).stream()).toList();
    for (String id : accepted) {
      inv.count("accepted");
      List<GatewayLedger.Event> ends = f.terminals(id);
      if (ends.isEmpty()) {
        String state = Optional.ofNullable(f.requestsById.get(id)).map(GatewayLedger.Request::state).orElse("absent");
        inv.violation("request " + id + " never ended (mailbox state " + state + ")");
        continue;
      }
      if (ends.size() > 1) {
        inv.violation("request " + id + " ended " + ends.size() + " times: " + ends.stream().map(e -> e.kind() + "@" + e.seq()).toList());
        continue;
      }
      GatewayLedger.Event end = ends.get(0);
      inv.count(switch (end.kind()) {
        case "done" -> "done";
        case "cancelled" -> "cancelled";
        default -> end.recoverable() ? "errorRecoverable" : "errorOther";
      });
      GatewayLedger.Request row = f.requestsById.get(id);
      if (row != null && !row.state().equals(end.kind())) {
        inv.violation("request " + id + " ended " + end.kind() + " in the ledger but its mailbox state is " + row.state());
      }
      followersSawItOnce(views, inv, id, end);
    }
    return inv;
  }

  /** One follower's view of one conversation: the range of event ids it saw and the endings among them. */
  private record View(String name, String conversation, long first, long last, Map<String, Integer> endsByRequest,
                      Map<Long, Integer> anonymousEndsById) {

    static Optional<View> of(String name, List<Op> ops) {
      List<Op> events = ops.stream().filter(o -> o.f().equals(GatewayOps.EVENT)).toList();
      if (events.isEmpty()) {
        return Optional.empty();
      }
      Map<String, Integer> byRequest = new HashMap<>();
      Map<Long, Integer> byId = new HashMap<>();
      for (Op o : events) {
        if (GatewayOps.terminal(o.str(GatewayOps.KIND))) {
          if (o.value().isEmpty()) {
            byId.merge(GatewayFacts.num(o, GatewayOps.ID), 1, Integer::sum);
          } else {
            byRequest.merge(o.value(), 1, Integer::sum);
          }
        }
      }
      return Optional.of(new View(name, events.get(0).str(GatewayOps.CONVERSATION),
        events.stream().mapToLong(o -> GatewayFacts.num(o, GatewayOps.ID)).min().orElseThrow(),
        events.stream().mapToLong(o -> GatewayFacts.num(o, GatewayOps.ID)).max().orElseThrow(), byRequest, byId));
    }
  }

  private static void followersSawItOnce(List<View> views, Invariant inv, String id, GatewayLedger.Event end) {
    for (View v : views) {
      if (!v.conversation().equals(end.conversation()) || end.seq() < v.first() || end.seq() > v.last()) {
        continue;
      }
      inv.count("followerEndingsChecked");
      int seen = v.endsByRequest().getOrDefault(id, 0) + v.anonymousEndsById().getOrDefault(end.seq(), 0);
      if (seen != 1) {
        inv.violation(v.name() + " saw request " + id + " end " + seen + " times (ledger: " + end.kind() + " at " + end.seq() + ")");
      }
    }
  }
}
