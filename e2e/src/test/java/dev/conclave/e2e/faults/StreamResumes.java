package dev.conclave.e2e.faults;

import java.util.List;
import java.util.Map;

/**
 * Invariant (b): no event is lost or duplicated by {@code StreamEvents}, across every resume. Per
 * follower per conversation the event ids seen rise by exactly one from the first (no gap, no
 * repeat), each resume asks for the events after the last one seen, an event that carries its own id
 * carries that one, and every event equals the ledger's event of that id: the same kind (as the
 * stream shows it) and, when the stream names the request, the same request. A lost event shifts
 * what follows, so it shows up as a mismatch even where ids are only counted.
 */
final class StreamResumes {

  static final String NAME = "streams-gap-free";

  private StreamResumes() {
  }

  static Invariant check(GatewayFacts f) {
    Invariant inv = new Invariant(NAME);
    for (Map.Entry<String, List<Op>> view : f.views.entrySet()) {
      String who = view.getKey();
      long last = -1;
      inv.count("views");
      for (Op op : view.getValue()) {
        String conversation = op.str(GatewayOps.CONVERSATION);
        if (op.f().equals(GatewayOps.RESUME)) {
          inv.count("streams");
          long since = GatewayFacts.num(op, GatewayOps.SINCE);
          if (last >= 0 && since != last) {
            inv.violation(who + " resumed after event " + since + " but had seen up to " + last);
          }
          continue;
        }
        inv.count("events");
        long id = GatewayFacts.num(op, GatewayOps.ID);
        if (last >= 0 && id != last + 1) {
          inv.violation(who + " saw event " + id + " after " + last + (id > last ? " (a gap)" : " (a repeat)"));
        }
        last = id;
        String carried = op.str(GatewayOps.EVENT_ID);
        if (!carried.isEmpty() && !carried.equals(Long.toString(id))) {
          inv.violation(who + " got event " + carried + " (" + op.str(GatewayOps.KIND) + ") where event " + id
            + " was due: events were lost or repeated before it");
        }
        GatewayLedger.Event stored = f.byConversation.getOrDefault(conversation, Map.of()).get(id);
        if (stored == null) {
          inv.violation(who + " saw event " + id + " (" + op.str(GatewayOps.KIND) + ") that the ledger does not have");
          continue;
        }
        String kind = op.str(GatewayOps.KIND);
        boolean sameKind = GatewayOps.streamKind(stored.kind()).equals(kind);
        boolean sameRequest = op.value().isEmpty() || stored.requestId().map(op.value()::equals).orElse(false);
        if (!sameKind || !sameRequest) {
          inv.violation(who + " event " + id + " was " + kind + (op.value().isEmpty() ? "" : " of " + op.value()) + " on the stream but "
            + stored.kind() + stored.requestId().map(r -> " of " + r).orElse("") + " in the ledger");
        }
      }
    }
    return inv;
  }
}
