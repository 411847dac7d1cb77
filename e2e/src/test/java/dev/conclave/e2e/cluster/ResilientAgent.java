package dev.conclave.e2e.cluster;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test agent that behaves like a production one: heartbeats, answers each request after a delay
 * with a text chunk and done, and on Shutdown or a lost stream reconnects to the next endpoint.
 * Records every request id it was given, to check nothing is delivered twice; an {@link Observer}
 * sees each session, delivery and answer as it happens (fault tests record them in a history).
 */
public final class ResilientAgent {

  /** What the agent went through, each call on the agent's context. Sessions are numbered from 1 per agent. */
  public interface Observer {
    /** A registration was welcomed by {@code server}. */
    default void connected(int session, String server) {
    }

    /** A request arrived while {@code inFlightBefore} others were still unanswered on this session. */
    default void delivered(int session, String requestId, int inFlightBefore) {
    }

    /** The answer (text chunk, then done) was written for the request. */
    default void answered(int session, String requestId) {
    }

    /** The session ended (lost stream, Shutdown handled, or stopped). */
    default void lost(int session) {
    }
  }

  private final Vertx vertx;
  private final GrpcClient client;
  private final List<SocketAddress> endpoints;
  private final String token;
  private final String agentId;
  private final long answerDelayMs;
  private final Map<String, AtomicInteger> received = new ConcurrentHashMap<>();
  private final AtomicInteger connections = new AtomicInteger();
  private volatile String servedBy = "";
  private volatile boolean stopped;
  private int next;
  private GrpcClientRequest<AgentMessage, ServerMessage> current;
  private long heartbeat = -1;
  private int inFlight;
  private GrpcClientRequest<AgentMessage, ServerMessage> draining;
  private Context context;
  private final Promise<Void> firstRegistration = Promise.promise();
  private volatile Observer observer = new Observer() { };
  private volatile java.util.function.Function<String, String> answerText;
  private volatile java.util.function.ToLongFunction<String> answerDelayFor;
  private int session;

  public ResilientAgent(Vertx vertx, GrpcClient client, List<Integer> ports, int firstPort, String token, String agentId, long answerDelayMs) {
    this(vertx, client, ResilientClient.local(ports), token, agentId, answerDelayMs, ports.indexOf(firstPort));
  }

  /** An agent that knows the nodes by address (pods), connecting to {@code endpoints[first]} first. */
  public static ResilientAgent at(Vertx vertx, GrpcClient client, List<SocketAddress> endpoints, int first, String token, String agentId,
                           long answerDelayMs) {
    return new ResilientAgent(vertx, client, endpoints, token, agentId, answerDelayMs, first);
  }

  private ResilientAgent(Vertx vertx, GrpcClient client, List<SocketAddress> endpoints, String token, String agentId, long answerDelayMs,
                         int first) {
    this.vertx = vertx;
    this.client = client;
    this.endpoints = endpoints;
    this.token = token;
    this.agentId = agentId;
    this.answerDelayMs = answerDelayMs;
    this.next = first;
    this.answerText = id -> "answer from " + agentId;
    this.answerDelayFor = content -> answerDelayMs;
  }

  /** Reports sessions, deliveries and answers to {@code observer}; call before {@link #start}. */
  public ResilientAgent observe(Observer observer) {
    this.observer = observer;
    return this;
  }

  /** Answers each request with {@code text.apply(requestId)} instead of "answer from &lt;agent id&gt;". */
  public ResilientAgent answerWith(java.util.function.Function<String, String> text) {
    this.answerText = text;
    return this;
  }

  /**
   * Answers each request after {@code delay.applyAsLong(content)} ms instead of the fixed delay: a
   * test that must kill a node while a request is held, and the next one still queued, holds the
   * first past the kill instead of racing a fixed delay (a loaded machine took longer than it).
   */
  public ResilientAgent answerDelay(java.util.function.ToLongFunction<String> delay) {
    this.answerDelayFor = delay;
    return this;
  }

  public String agentId() {
    return agentId;
  }

  public io.vertx.core.Future<Void> start() {
    vertx.runOnContext(v -> {
      context = Vertx.currentContext();
      connect();
    });
    return firstRegistration.future();
  }

  private void connect() {
    if (stopped) {
      return;
    }
    SocketAddress endpoint = endpoints.get(next % endpoints.size());
    client.request(endpoint, CovenControlGrpcClient.AgentStream).onComplete(ar -> {
      if (ar.failed()) {
        // nothing listens there (a stopped or not yet started pod): try the next one
        next++;
        retry();
        return;
      }
      GrpcClientRequest<AgentMessage, ServerMessage> req = ar.result();
      current = req;
      req.headers().set("authorization", "Bearer " + token);
      req.response().onComplete(resp -> {
        if (resp.failed()) {
          if (current == req) {
            current = null;
            next++;
            retry();
          }
          return;
        }
        resp.result().handler(m -> onMessage(req, m));
        resp.result().endHandler(v -> lost(req));
        resp.result().exceptionHandler(err -> lost(req));
        resp.result().errorHandler(err -> lost(req));
      });
      req.write(AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder().setAgentId(agentId).setName(agentId)
        .setMetadata(AgentMetadata.newBuilder().setBackend("direct"))).build()).onFailure(err -> lost(req));
    });
  }

  private void onMessage(GrpcClientRequest<AgentMessage, ServerMessage> req, ServerMessage m) {
    if (m.hasWelcome()) {
      servedBy = m.getWelcome().getServerId();
      session = connections.incrementAndGet();
      observer.connected(session, servedBy);
      firstRegistration.tryComplete();
      vertx.cancelTimer(heartbeat);
      heartbeat = vertx.setPeriodic(2000, t -> write(req, AgentMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder()
        .setTimestampMs(System.currentTimeMillis())).build()));
      return;
    }
    if (m.hasShutdown()) {
      // a draining node hands us over: finish what we hold, then go elsewhere
      draining = req;
      if (inFlight == 0) {
        lost(req);
      }
      return;
    }
    if (!m.hasSendMessage()) {
      return;
    }
    String id = m.getSendMessage().getRequestId();
    received.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
    observer.delivered(session, id, inFlight);
    inFlight++;
    int deliveredOn = session;
    vertx.setTimer(Math.max(1, answerDelayFor.applyAsLong(m.getSendMessage().getContent())), t -> {
      if (current != req) {
        // the session is gone (lost() reset the count): nothing to answer on
        return;
      }
      inFlight--;
      write(req, AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(id).setText(answerText.apply(id))).build());
      write(req, AgentMessage.newBuilder().setResponse(MessageResponse.newBuilder().setRequestId(id).setDone(Done.getDefaultInstance())).build());
      observer.answered(deliveredOn, id);
      if (draining == req) {
        vertx.setTimer(100, x -> lost(req));
      }
    });
  }

  private void write(GrpcClientRequest<AgentMessage, ServerMessage> req, AgentMessage m) {
    try {
      req.write(m);
    } catch (RuntimeException gone) {
      lost(req);
    }
  }

  private void lost(GrpcClientRequest<AgentMessage, ServerMessage> req) {
    context.runOnContext(v -> {
      if (current != req) {
        return;
      }
      current = null;
      inFlight = 0;
      observer.lost(session);
      vertx.cancelTimer(heartbeat);
      try {
        req.cancel();
      } catch (RuntimeException ignored) {
        // already gone
      }
      next++;
      retry();
    });
  }

  private void retry() {
    if (!stopped) {
      vertx.setTimer(300, t -> connect());
    }
  }

  public void stop() {
    stopped = true;
    context.runOnContext(v -> {
      vertx.cancelTimer(heartbeat);
      if (current != null) {
        current.cancel();
        current = null;
        observer.lost(session);
      }
    });
  }

  public Map<String, AtomicInteger> received() {
    return received;
  }

  public String servedBy() {
    return servedBy;
  }

  public int connections() {
    return connections.get();
  }
}
