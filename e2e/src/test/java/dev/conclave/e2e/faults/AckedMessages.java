package dev.conclave.e2e.faults;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Invariant (d): no acknowledged write is missing afterwards and none is accepted twice. Every
 * SendMessage that returned ok has its request in the mailbox (under its idempotency key, with the
 * message id it was told) and its inbound event in the ledger; every answer for one idempotency key
 * names the same message id, and the mailbox has one request per key; a send refused with a
 * definite error left nothing behind.
 */
final class AckedMessages {

  static final String NAME = "acked-messages-durable";

  private AckedMessages() {
  }

  static Invariant check(GatewayFacts f) {
    Invariant inv = new Invariant(NAME);
    for (GatewayFacts.Send s : f.sends) {
      List<GatewayLedger.Request> rows = f.requestsByKey.getOrDefault(s.key(), List.of());
      if (s.is(Op.Type.OK)) {
        inv.count("acked");
        String told = s.completion().orElseThrow().str(GatewayOps.MESSAGE_ID);
        if (told.isEmpty()) {
          inv.count("ackedAsDuplicate");
        }
        if (rows.isEmpty()) {
          inv.violation("send " + s.key() + " to " + s.conversation() + " was acked (message " + told + ") but the mailbox has no request with that key");
          continue;
        }
        if (!told.isEmpty() && rows.stream().noneMatch(r -> r.id().equals(told))) {
          inv.violation("send " + s.key() + " was acked as message " + told + " but the mailbox holds " + ids(rows) + " for its key");
        }
        String id = told.isEmpty() ? rows.get(0).id() : told;
        boolean inbound = f.byRequest.getOrDefault(id, List.of()).stream().anyMatch(e -> e.kind().equals("inbound"));
        if (!inbound) {
          inv.violation("acked message " + id + " (key " + s.key() + ") has no inbound event in the ledger of " + s.conversation());
        }
      } else if (s.is(Op.Type.FAIL)) {
        inv.count("refused");
        if (!rows.isEmpty()) {
          inv.violation("send " + s.key() + " was refused (" + s.completion().orElseThrow().str(GatewayOps.ERROR) + ") but was accepted as " + ids(rows));
        }
      } else {
        inv.count(s.completion().isPresent() ? "indeterminate" : "unanswered");
        inv.count(rows.isEmpty() ? "indeterminateNotAccepted" : "indeterminateAccepted");
      }
    }
    f.sends.stream().collect(Collectors.groupingBy(GatewayFacts.Send::key)).forEach((key, sends) -> {
      Set<String> told = sends.stream().filter(s -> s.is(Op.Type.OK)).map(s -> s.completion().orElseThrow().str(GatewayOps.MESSAGE_ID))
        .filter(id -> !id.isEmpty()).collect(Collectors.toCollection(TreeSet::new));
      if (told.size() > 1) {
        inv.violation("idempotency key " + key + " was accepted as several messages: " + told);
      }
    });
    f.requestsByKey.forEach((key, rows) -> {
      if (rows.size() > 1) {
        inv.violation("the mailbox holds " + rows.size() + " requests for idempotency key " + key + ": " + ids(rows));
      }
    });
    return inv;
  }

  private static String ids(List<GatewayLedger.Request> rows) {
    return rows.stream().map(GatewayLedger.Request::id).toList().toString();
  }
}
