package dev.conclave.e2e.cluster;

import dev.conclave.proto.coven.ClientSendMessageRequest;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One client of a storm, in a closed loop: it sends a message to a random agent of its own share
 * of the agents (so that only one request of its is ever open in a conversation), and sends the
 * next once that request's terminal event reached it on the conversation's stream. It behaves like
 * a production client: when its node does not answer (a lost stream, a failed call, or no terminal
 * within {@value #ATTEMPT_SECONDS} s) it follows the conversation and sends again, with the same
 * idempotency key, on the next node.
 *
 * <p>Each attempt follows the conversation from its start (replayed, then live: both look the same),
 * so a terminal event that came while no stream was open is not missed. The request's terminal
 * event is a {@code done} echoing its content, or an error after the request's own message (only
 * this client and the storm's probes write to the conversation).
 */
final class StormClient {

  static final int ATTEMPT_SECONDS = 30;
  static final int GIVE_UP_SECONDS = 180;
  private static final Set<String> TERMINAL = Set.of("done", "error", "cancelled");

  private final Vertx vertx;
  private final GrpcClient grpc;
  private final List<SocketAddress> endpoints;
  private final String authorization;
  private final int id;
  private final List<String> conversations;
  private final StormLog log;
  private final Random random;
  private volatile boolean running = true;
  private final Promise<Void> stopped = Promise.promise();
  private int next;
  private long seq;
  private Context context;

  StormClient(Vertx vertx, GrpcClient grpc, List<SocketAddress> endpoints, String token, int id, List<String> conversations, StormLog log) {
    this.vertx = vertx;
    this.grpc = grpc;
    this.endpoints = endpoints;
    this.authorization = "Bearer " + token;
    this.id = id;
    this.conversations = conversations;
    this.log = log;
    this.random = new Random(id);
    this.next = id % endpoints.size();
  }

  void start() {
    vertx.runOnContext(v -> {
      context = Vertx.currentContext();
      sendNext();
    });
  }

  /** Sends nothing new; completes once the request in flight ended (or was given up). */
  io.vertx.core.Future<Void> stop() {
    running = false;
    return stopped.future();
  }

  private void sendNext() {
    if (!running) {
      stopped.tryComplete();
      return;
    }
    long n = ++seq;
    String key = conversations.get(random.nextInt(conversations.size()));
    String content = "storm c" + id + "-" + n;
    String idempotency = "storm-c" + id + "-" + n;
    Request r = new Request(key, content, idempotency, System.nanoTime());
    log.sent(idempotency);
    attempt(r, 1);
  }

  /** One request, as it goes from node to node. */
  private static final class Request {
    final String key;
    final String content;
    final String idempotency;
    final long start;
    String requestId;
    boolean ended;
    int attempt;
    long timer = -1;
    GrpcClientRequest<?, ?> follow;
    /** This attempt's stream showed the request's own message: an error after it is the request's. */
    boolean inboundSeen;

    Request(String key, String content, String idempotency, long start) {
      this.key = key;
      this.content = content;
      this.idempotency = idempotency;
      this.start = start;
    }
  }

  private void attempt(Request r, int attempt) {
    r.attempt = attempt;
    r.inboundSeen = false;
    SocketAddress node = endpoints.get(Math.floorMod(next, endpoints.size()));
    r.timer = vertx.setTimer(TimeUnit.SECONDS.toMillis(ATTEMPT_SECONDS), t -> retry(r, attempt, "no terminal event within " + ATTEMPT_SECONDS + " s"));
    grpc.request(node, ClientServiceGrpcClient.StreamEvents).onComplete(ar -> {
      if (ar.failed()) {
        retry(r, attempt, "StreamEvents: " + ar.cause());
        return;
      }
      GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> follow = ar.result();
      if (r.attempt != attempt) {
        cancel(follow);
        return;
      }
      r.follow = follow;
      follow.headers().set("authorization", authorization);
      follow.end(StreamEventsRequest.newBuilder().setConversationKey(r.key).setSinceEventId("0").build());
      follow.response().onComplete(resp -> {
        if (resp.failed()) {
          retry(r, attempt, "StreamEvents: " + resp.cause());
          return;
        }
        resp.result().handler(e -> onEvent(r, attempt, e));
        resp.result().endHandler(v -> retry(r, attempt, "the conversation's stream ended"));
        resp.result().exceptionHandler(err -> retry(r, attempt, "the conversation's stream failed: " + err));
        send(r, attempt, node);
      });
    });
  }

  private void send(Request r, int attempt, SocketAddress node) {
    grpc.request(node, ClientServiceGrpcClient.SendMessage)
      .compose(req -> {
        req.headers().set("authorization", authorization);
        req.timeout(ATTEMPT_SECONDS, TimeUnit.SECONDS);
        return req.send(ClientSendMessageRequest.newBuilder().setConversationKey(r.key).setContent(r.content)
          .setIdempotencyKey(r.idempotency).build());
      })
      .compose(resp -> resp.last())
      .onComplete(ar -> {
        if (ar.failed()) {
          retry(r, attempt, "SendMessage: " + ar.cause());
          return;
        }
        log.accepted(r.idempotency);
        if (!ar.result().getMessageId().isEmpty()) {
          r.requestId = ar.result().getMessageId();
        }
      });
  }

  private void onEvent(Request r, int attempt, ClientStreamEvent e) {
    if (r.ended || r.attempt != attempt) {
      return;
    }
    boolean terminal = false;
    boolean ok = false;
    switch (e.getPayloadCase()) {
      case EVENT -> {
        String kind = e.getEvent().getRawTransport();
        String ref = e.getEvent().getRawPayloadRef();
        String request = ref.startsWith("request/") ? ref.substring("request/".length()) : "";
        if (kind.equals("inbound") && e.getEvent().getText().equals(r.content)) {
          r.requestId = request;
          r.inboundSeen = true;
        } else if (TERMINAL.contains(kind) && !request.isEmpty() && request.equals(r.requestId)) {
          terminal = true;
          ok = kind.equals("done");
        }
      }
      case DONE -> {
        terminal = e.getDone().getFullResponse().equals("echo: " + r.content);
        ok = terminal;
      }
      // earlier requests' errors come first when the stream replays the conversation
      case ERROR -> terminal = r.inboundSeen;
      default -> {
        // text chunks and the like
      }
    }
    if (!terminal) {
      return;
    }
    r.ended = true;
    release(r);
    log.ended(r.start, System.nanoTime(), ok);
    sendNext();
  }

  private void retry(Request r, int attempt, String why) {
    context.runOnContext(v -> {
      if (r.ended || r.attempt != attempt) {
        return;
      }
      r.attempt = -1;
      release(r);
      if (System.nanoTime() - r.start > TimeUnit.SECONDS.toNanos(GIVE_UP_SECONDS)) {
        r.ended = true;
        log.gaveUp(r.idempotency, why);
        sendNext();
        return;
      }
      log.retried(why);
      next++;
      vertx.setTimer(200, t -> attempt(r, attempt + 1));
    });
  }

  private void release(Request r) {
    vertx.cancelTimer(r.timer);
    if (r.follow != null) {
      cancel(r.follow);
      r.follow = null;
    }
  }

  private static void cancel(GrpcClientRequest<?, ?> follow) {
    try {
      follow.cancel();
    } catch (RuntimeException alreadyEnded) {
      // the node ended it
    }
  }
}
