package dev.conclave.e2e.faults;

import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Follows one conversation with {@code StreamEvents} for the whole run as a careful client does:
 * from the beginning ({@code since_event_id} 0), and after any loss of the stream again on the next
 * endpoint from the last event it saw. Since the k-th event after {@code since} N is event N+k, it
 * numbers events by counting; every event goes into the history ({@link GatewayOps#EVENT}) for the
 * checker to compare with the ledger.
 */
final class EventFollower {

  private final Vertx vertx;
  private final GrpcClient grpc;
  private final List<SocketAddress> endpoints;
  private final String token;
  private final String conversation;
  private final String process;
  private final History history;
  private final Set<String> inbound = ConcurrentHashMap.newKeySet();
  private final AtomicInteger terminals = new AtomicInteger();
  private Context context;
  private GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> current;
  private volatile boolean stopped;
  private long last;
  /** The current StreamEvents call's number; a call's late events and losses are ignored once it is not current. */
  private int stream = 1;
  private int next;

  EventFollower(Vertx vertx, GrpcClient grpc, List<SocketAddress> endpoints, int first, String token, String conversation,
                String process, History history) {
    this.vertx = vertx;
    this.grpc = grpc;
    this.endpoints = endpoints;
    this.next = first;
    this.token = token;
    this.conversation = conversation;
    this.process = process;
    this.history = history;
  }

  void start() {
    vertx.runOnContext(v -> {
      context = Vertx.currentContext();
      open();
    });
  }

  private void open() {
    if (stopped) {
      return;
    }
    int mine = stream;
    long since = last;
    SocketAddress endpoint = endpoints.get(Math.floorMod(next, endpoints.size()));
    history.observe(process, GatewayOps.RESUME, "", Map.of(GatewayOps.CONVERSATION, conversation, GatewayOps.SINCE, Long.toString(since),
      GatewayOps.STREAM, Integer.toString(mine), GatewayOps.ENDPOINT, endpoint.toString()));
    grpc.request(endpoint, ClientServiceGrpcClient.StreamEvents).onComplete(ar -> {
      if (ar.failed()) {
        lost(mine);
        return;
      }
      GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> req = ar.result();
      current = req;
      req.headers().set("authorization", "Bearer " + token);
      req.end(StreamEventsRequest.newBuilder().setConversationKey(conversation).setSinceEventId(Long.toString(since)).build());
      req.response().onComplete(resp -> {
        if (resp.failed()) {
          lost(mine);
          return;
        }
        resp.result().handler(e -> onEvent(mine, e));
        resp.result().endHandler(v -> lost(mine));
        resp.result().exceptionHandler(err -> lost(mine));
        resp.result().errorHandler(err -> lost(mine));
      });
    });
  }

  private void onEvent(int from, ClientStreamEvent e) {
    if (from != stream || stopped) {
      return;
    }
    long id = ++last;
    Map<String, String> data = new HashMap<>();
    data.put(GatewayOps.CONVERSATION, conversation);
    data.put(GatewayOps.ID, Long.toString(id));
    data.put(GatewayOps.STREAM, Integer.toString(from));
    String kind;
    Optional<String> request = Optional.empty();
    switch (e.getPayloadCase()) {
      case EVENT -> {
        kind = e.getEvent().getRawTransport();
        data.put(GatewayOps.EVENT_ID, e.getEvent().getId());
        String ref = e.getEvent().getRawPayloadRef();
        if (ref.startsWith("request/")) {
          request = Optional.of(ref.substring("request/".length()));
        }
        if (kind.equals("inbound")) {
          request.ifPresent(inbound::add);
        }
      }
      case TEXT -> {
        kind = "text";
        request = GatewayOps.requestIn(e.getText().getContent());
      }
      case DONE -> {
        kind = "done";
        request = GatewayOps.requestIn(e.getDone().getFullResponse());
      }
      case ERROR -> kind = "error";
      default -> kind = e.getPayloadCase().name().toLowerCase(java.util.Locale.ROOT);
    }
    if (GatewayOps.terminal(kind)) {
      terminals.incrementAndGet();
    }
    data.put(GatewayOps.KIND, kind);
    history.observe(process, GatewayOps.EVENT, request.orElse(""), data);
  }

  private void lost(int which) {
    context.runOnContext(v -> {
      if (which != stream || stopped) {
        return;
      }
      stream++;
      cancel();
      next++;
      vertx.setTimer(200, t -> open());
    });
  }

  private void cancel() {
    if (current != null) {
      try {
        current.cancel();
      } catch (RuntimeException gone) {
        // already ended
      }
      current = null;
    }
  }

  /** Whether every one of {@code accepted} was seen arriving and as many requests were seen ending as arrived. */
  boolean settled(Set<String> accepted) {
    return inbound.containsAll(accepted) && terminals.get() >= inbound.size();
  }

  /** What this follower still lacks of {@code accepted}, and where it follows from; for a report when the load did not settle. */
  String lag(Set<String> accepted) {
    long missing = accepted.stream().filter(id -> !inbound.contains(id)).count();
    return conversation + " (stream " + stream + " at " + endpoints.get(Math.floorMod(next, endpoints.size())) + ", last event " + last
      + "): " + missing + " of " + accepted.size() + " accepted not seen arriving, " + terminals.get() + " endings of " + inbound.size()
      + " seen arriving";
  }

  String conversation() {
    return conversation;
  }

  void stop() {
    stopped = true;
    if (context != null) {
      context.runOnContext(v -> cancel());
    }
  }
}
