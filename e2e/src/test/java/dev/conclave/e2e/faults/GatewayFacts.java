package dev.conclave.e2e.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A gateway history and ledger indexed for the gateway invariants: sends with their outcomes,
 * each follower's view of each conversation, the agents' deliveries, and the ledger by
 * conversation, request and idempotency key.
 */
final class GatewayFacts {

  /** One SendMessage: its invocation and its completion, if any. */
  record Send(Op invoke, Optional<Op> completion) {
    String key() {
      return invoke.value();
    }

    String conversation() {
      return invoke.str(GatewayOps.CONVERSATION);
    }

    boolean is(Op.Type t) {
      return completion.map(c -> c.type() == t).orElse(false);
    }
  }

  final History history;
  final GatewayLedger ledger;
  final List<Send> sends = new ArrayList<>();
  /** Follower events and resumes per "follower-N conversation", in the order recorded. */
  final Map<String, List<Op>> views = new LinkedHashMap<>();
  final List<Op> deliveries;
  final Map<String, Map<Long, GatewayLedger.Event>> byConversation = new HashMap<>();
  final Map<String, List<GatewayLedger.Event>> byRequest = new HashMap<>();
  final Map<String, List<GatewayLedger.Request>> requestsByKey = new HashMap<>();
  final Map<String, GatewayLedger.Request> requestsById = new HashMap<>();

  GatewayFacts(History history, GatewayLedger ledger) {
    this.history = history;
    this.ledger = ledger;
    List<Op> ops = history.ops();
    Map<Long, Op> completions = new HashMap<>();
    for (Op op : ops) {
      if (op.f().equals(GatewayOps.SEND) && op.invoke() >= 0) {
        completions.put(op.invoke(), op);
      }
    }
    for (Op op : ops) {
      if (op.is(Op.Type.INVOKE, GatewayOps.SEND)) {
        sends.add(new Send(op, Optional.ofNullable(completions.get(op.index()))));
      }
      if (op.invoke() < 0 && (op.f().equals(GatewayOps.EVENT) || op.f().equals(GatewayOps.RESUME))) {
        views.computeIfAbsent(op.process() + " " + op.str(GatewayOps.CONVERSATION), k -> new ArrayList<>()).add(op);
      }
    }
    deliveries = ops.stream().filter(o -> o.f().equals(GatewayOps.DELIVER) && o.invoke() < 0).toList();
    for (GatewayLedger.Event e : ledger.events()) {
      byConversation.computeIfAbsent(e.conversation(), k -> new HashMap<>()).put(e.seq(), e);
      e.requestId().ifPresent(r -> byRequest.computeIfAbsent(r, k -> new ArrayList<>()).add(e));
    }
    for (GatewayLedger.Request r : ledger.requests()) {
      requestsByKey.computeIfAbsent(r.idempotencyKey(), k -> new ArrayList<>()).add(r);
      requestsById.put(r.id(), r);
    }
  }

  /** The request an acknowledged send made: by its message id, else (a duplicate answer) by its idempotency key. */
  Optional<String> acceptedRequest(Send s) {
    String id = s.completion().map(c -> c.str(GatewayOps.MESSAGE_ID)).orElse("");
    if (!id.isEmpty()) {
      return Optional.of(id);
    }
    List<GatewayLedger.Request> rows = requestsByKey.getOrDefault(s.key(), List.of());
    return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0).id());
  }

  /** The ledger's terminal events of a request. */
  List<GatewayLedger.Event> terminals(String requestId) {
    return byRequest.getOrDefault(requestId, List.of()).stream().filter(e -> GatewayOps.terminal(e.kind())).toList();
  }

  static long num(Op op, String key) {
    return Long.parseLong(op.get(key).orElse("-1"));
  }
}
