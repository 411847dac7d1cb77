package dev.conclave.e2e.bench;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.ExecutePackTool;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An agent on its own connection and AgentStream that calls one pack tool in a closed loop with up
 * to {@code inFlight} calls outstanding: each {@code ExecutePackTool} carries a JSON input, and a
 * call succeeds when its {@code PackToolResult} comes back with that same JSON as output (the
 * bench pack echoes it). A call that neither succeeds nor fails within {@link #CALL_TIMEOUT_MS}
 * counts as failed. The same class drives the bare echo baseline (no token there).
 */
final class ToolCallAgent extends VerticleBase {

  static final long CALL_TIMEOUT_MS = 30_000;
  private static final long HEARTBEAT_MS = 15_000;
  /** Error texts printed per run; the count is always reported. */
  private static final AtomicInteger PRINTED = new AtomicInteger();

  private record Pending(long sentAt, long timer, String input) {
  }

  private final CallWindows windows;
  private final SocketAddress address;
  private final String token;
  private final String agentId;
  private final String toolName;
  private final int inFlight;
  private final String text;
  private final Promise<Void> registered = Promise.promise();
  private final Promise<Void> stopped = Promise.promise();
  private final Map<String, Pending> pending = new HashMap<>();
  private GrpcClient client;
  private GrpcClientRequest<AgentMessage, ServerMessage> stream;
  private long heartbeat = -1;
  private volatile long sequence;
  private boolean running;
  private boolean lost;
  private boolean closing;
  private String serverId = "";

  ToolCallAgent(CallWindows windows, SocketAddress address, String token, String agentId, String toolName, int inFlight, String text) {
    this.windows = windows;
    this.address = address;
    this.token = token;
    this.agentId = agentId;
    this.toolName = toolName;
    this.inFlight = inFlight;
    this.text = text;
  }

  /** Deployed once the server welcomed the agent. */
  @Override
  public Future<?> start() {
    client = GrpcClient.client(vertx);
    return client.request(address, CovenControlGrpcClient.AgentStream).compose(req -> {
      stream = req;
      if (token != null) {
        req.headers().set("authorization", "Bearer " + token);
      }
      req.response().onComplete(ar -> {
        if (ar.failed()) {
          registered.tryFail(ar.cause());
          lost("no response: " + ar.cause());
          return;
        }
        var resp = ar.result();
        resp.handler(this::onMessage);
        resp.endHandler(v -> lost("ended: " + resp.status() + " " + resp.statusMessage()));
        resp.exceptionHandler(err -> lost(String.valueOf(err)));
      });
      req.write(AgentMessage.newBuilder().setRegister(RegisterAgent.newBuilder()
        .setAgentId(agentId)
        .setName("pack bench " + agentId)
        .addCapabilities("chat")
        .setMetadata(AgentMetadata.newBuilder().setBackend("bench").setOs("linux"))).build());
      return registered.future();
    }).onSuccess(v -> heartbeat = vertx.setPeriodic(HEARTBEAT_MS, t -> write(AgentMessage.newBuilder()
      .setHeartbeat(Heartbeat.newBuilder().setTimestampMs(System.currentTimeMillis())).build())));
  }

  /** Calls sent so far, in every window. */
  long sent() {
    return sequence;
  }

  /** The node the gateway said holds the stream ({@code Welcome.server_id}). */
  String serverId() {
    return serverId;
  }

  /** Starts calling; completes once the windows stopped and every call in flight has ended. */
  Future<Void> run() {
    context.runOnContext(v -> {
      running = true;
      fill();
    });
    return stopped.future();
  }

  private void fill() {
    while (running && !lost && !windows.stopping() && pending.size() < inFlight) {
      send();
    }
    if (pending.isEmpty() && (windows.stopping() || lost)) {
      stopped.tryComplete();
    }
  }

  private void send() {
    long seq = ++sequence;
    String id = agentId + "-" + seq;
    String input = "{\"text\":\"" + text + "\",\"seq\":" + seq + "}";
    long timer = vertx.setTimer(CALL_TIMEOUT_MS, t -> {
      if (pending.remove(id) != null) {
        error("call " + id + " timed out after " + CALL_TIMEOUT_MS + " ms");
        fill();
      }
    });
    pending.put(id, new Pending(System.nanoTime(), timer, input));
    write(AgentMessage.newBuilder().setExecutePackTool(ExecutePackTool.newBuilder()
      .setRequestId(id).setToolName(toolName).setInputJson(input)).build());
  }

  private void onMessage(ServerMessage m) {
    switch (m.getPayloadCase()) {
      case WELCOME -> {
        serverId = m.getWelcome().getServerId();
        registered.tryComplete();
      }
      case REGISTRATION_ERROR -> registered.tryFail("registration refused: " + m.getRegistrationError().getReason());
      case PACK_TOOL_RESULT -> result(m.getPackToolResult());
      default -> {
        // nothing else is expected: this agent gets no work
      }
    }
  }

  private void result(PackToolResult r) {
    Pending p = pending.remove(r.getRequestId());
    if (p == null) {
      error("result for a call not in flight: " + r.getRequestId());
      return;
    }
    long nanos = System.nanoTime() - p.sentAt();
    vertx.cancelTimer(p.timer());
    if (r.getResultCase() == PackToolResult.ResultCase.OUTPUT_JSON && r.getOutputJson().equals(p.input())) {
      windows.current().completed(nanos);
      windows.current().events(1);
    } else if (r.getResultCase() == PackToolResult.ResultCase.ERROR) {
      error("call " + r.getRequestId() + " failed: " + r.getError());
    } else {
      error("call " + r.getRequestId() + " came back with other output: " + r.getOutputJson());
    }
    fill();
  }

  private void write(AgentMessage message) {
    try {
      stream.write(message);
    } catch (IllegalStateException gone) {
      lost("write failed: " + gone.getMessage());
    }
  }

  private void lost(String why) {
    registered.tryFail("stream ended before Welcome: " + why);
    if (closing || lost) {
      return;
    }
    lost = true;
    print("agent " + agentId + " lost its stream (" + why + ") with " + pending.size() + " calls in flight; they count as failed");
    pending.values().forEach(p -> {
      vertx.cancelTimer(p.timer());
      windows.current().failed();
    });
    pending.clear();
    fill();
  }

  private void error(String what) {
    windows.current().failed();
    print(what);
  }

  private static void print(String what) {
    if (PRINTED.incrementAndGet() <= 10) {
      System.err.println("bench: " + what);
    }
  }

  @Override
  public Future<?> stop() {
    closing = true;
    vertx.cancelTimer(heartbeat);
    if (stream != null) {
      try {
        stream.end();
      } catch (RuntimeException alreadyEnded) {
        // the server ended it
      }
    }
    return client.close();
  }
}
