package dev.conclave.e2e.faults;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Invariant (e): an agent is not handed the same request twice on a live session. A second
 * delivery on another session (after a reconnect) is counted as a redelivery, and fails the
 * invariant only when the ledger shows the request answered twice (two done events, or text from
 * two sessions). A request handed to an agent other than its own also fails.
 */
final class Deliveries {

  static final String NAME = "no-redelivery";

  private Deliveries() {
  }

  static Invariant check(GatewayFacts f) {
    Invariant inv = new Invariant(NAME);
    Map<String, List<Op>> byRequest = f.deliveries.stream().collect(Collectors.groupingBy(Op::value));
    byRequest.forEach((request, deliveries) -> {
      inv.count("requestsDelivered");
      GatewayLedger.Request row = f.requestsById.get(request);
      for (Op d : deliveries) {
        if (row != null && !row.agentId().equals(d.str(GatewayOps.AGENT))) {
          inv.violation("request " + request + " of agent " + row.agentId() + " was handed to " + d.str(GatewayOps.AGENT));
        }
      }
      if (deliveries.size() < 2) {
        return;
      }
      Map<String, Long> perSession = deliveries.stream().collect(Collectors.groupingBy(d -> d.str(GatewayOps.AGENT) + " session "
        + d.str(GatewayOps.SESSION), Collectors.counting()));
      perSession.forEach((session, n) -> {
        if (n > 1) {
          inv.violation("request " + request + " was handed " + n + " times to " + session);
        }
      });
      inv.count("redelivered");
      List<GatewayLedger.Event> events = f.byRequest.getOrDefault(request, List.of());
      long done = events.stream().filter(e -> e.kind().equals("done")).count();
      long text = events.stream().filter(e -> e.kind().equals("text")).count();
      if (done > 1 || text > 1) {
        inv.violation("request " + request + " was delivered " + deliveries.size() + " times and answered " + Math.max(done, text)
          + " times in the ledger");
      }
    });
    return inv;
  }
}
