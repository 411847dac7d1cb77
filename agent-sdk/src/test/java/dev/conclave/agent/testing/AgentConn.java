package dev.conclave.agent.testing;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CancelRequest;
import dev.conclave.proto.coven.InjectContext;
import dev.conclave.proto.coven.InjectionPriority;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.RegistrationError;
import dev.conclave.proto.coven.SendMessage;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Shutdown;
import dev.conclave.proto.coven.ToolApprovalResponse;
import dev.conclave.proto.coven.ToolDefinition;
import dev.conclave.proto.coven.Welcome;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** One agent stream as the gateway double sees it. Test-thread methods block for bounded times. */
public final class AgentConn {

  private final FakeGateway gateway;
  private final GrpcServerRequest<AgentMessage, ServerMessage> request;
  private final Context context;
  private final LinkedBlockingQueue<AgentMessage> inbox = new LinkedBlockingQueue<>();
  private final List<AgentMessage> received = new CopyOnWriteArrayList<>();
  private final CompletableFuture<RegisterAgent> registered = new CompletableFuture<>();
  private final CompletableFuture<String> ended = new CompletableFuture<>();
  private volatile boolean closeWhenAgentCloses = true;
  private final java.util.concurrent.atomic.AtomicInteger syncs = new java.util.concurrent.atomic.AtomicInteger();

  AgentConn(FakeGateway gateway, GrpcServerRequest<AgentMessage, ServerMessage> request, Context context) {
    this.gateway = gateway;
    this.request = request;
    this.context = context;
    request.handler(this::onMessage);
    request.endHandler(v -> {
      ended.complete("end");
      if (closeWhenAgentCloses) {
        // a well-behaved gateway ends the call once the agent half-closed it
        endWith(GrpcStatus.OK, null);
      }
    });
    request.errorHandler(e -> ended.complete("error " + e));
    request.exceptionHandler(t -> ended.complete("exception " + t));
    request.connection().closeHandler(v -> ended.complete("connection closed"));
  }

  private void onMessage(AgentMessage m) {
    received.add(m);
    if (m.hasRegister() && !registered.isDone()) {
      registered.complete(m.getRegister());
      gateway.script().onRegister(this, m.getRegister());
      return;
    }
    inbox.add(m);
  }

  // ---- gateway side ----------------------------------------------------------------------------

  /** Keeps the call open after the agent half-closed it, as a sluggish gateway might. */
  public void ignoreAgentClose() {
    closeWhenAgentCloses = false;
  }

  public void send(ServerMessage m) {
    context.runOnContext(v -> {
      try {
        request.response().write(m);
      } catch (IllegalStateException streamGone) {
        // the agent side is gone already; the test observes that through ended()
      }
    });
  }

  /** Sends the response's headers alone, as Conclave's gateway does as soon as a stream opens. */
  public void headersOnly() {
    context.runOnContext(v -> request.response().writeHead());
  }

  public static Welcome.Builder defaultWelcome(String serverId, String agentId) {
    return Welcome.newBuilder()
      .setServerId(serverId).setAgentId(agentId).setInstanceId("inst-" + agentId.substring(0, Math.min(4, agentId.length())))
      .setPrincipalId("principal-1")
      .addAvailableTools(ToolDefinition.newBuilder().setName("weather").setDescription("looks up weather")
        .setInputSchemaJson("{\"type\":\"object\"}").addRequiredCapabilities("chat").setTimeoutSeconds(7))
      .setMcpToken("mcp-token").setMcpEndpoint("http://127.0.0.1:8080/mcp")
      .putSecrets("API_KEY", "s3cret");
  }

  public void welcome() {
    welcome(defaultWelcome(gateway.serverId(), register().getAgentId()).build());
  }

  public void welcome(Welcome w) {
    send(ServerMessage.newBuilder().setWelcome(w).build());
  }

  public void rejectRegistration(String reason, String suggestedId) {
    send(ServerMessage.newBuilder().setRegistrationError(
      RegistrationError.newBuilder().setReason(reason).setSuggestedId(suggestedId)).build());
    endWith(GrpcStatus.OK, null);
  }

  /** Ends the call from the gateway side with a status. */
  public void endWith(GrpcStatus status, String message) {
    context.runOnContext(v -> {
      try {
        request.response().status(status);
        if (message != null) {
          request.response().statusMessage(message);
        }
        request.response().end();
      } catch (IllegalStateException alreadyEnded) {
        // nothing left to end
      }
    });
  }

  /** Drops the whole TCP connection, like a node that dies. */
  public void dropConnection() {
    context.runOnContext(v -> request.connection().close());
  }

  /** Stops reading what the agent sends (HTTP/2 flow control then pushes back). */
  public void pauseReading() {
    context.runOnContext(v -> request.pause());
  }

  public void resumeReading() {
    context.runOnContext(v -> request.resume());
  }

  public void sendMessage(String requestId, String content) {
    sendMessage(requestId, "thread-" + requestId, content);
  }

  public void sendMessage(String requestId, String threadId, String content) {
    send(ServerMessage.newBuilder().setSendMessage(SendMessage.newBuilder()
      .setRequestId(requestId).setThreadId(threadId).setSender("alice").setContent(content)).build());
  }

  public void cancel(String requestId, String reason) {
    send(ServerMessage.newBuilder().setCancelRequest(CancelRequest.newBuilder().setRequestId(requestId).setReason(reason)).build());
  }

  public void approve(String toolId, boolean approved, boolean approveAll) {
    send(ServerMessage.newBuilder().setToolApproval(ToolApprovalResponse.newBuilder()
      .setId(toolId).setApproved(approved).setApproveAll(approveAll)).build());
  }

  public void inject(String injectionId, String content) {
    send(ServerMessage.newBuilder().setInjectContext(InjectContext.newBuilder().setInjectionId(injectionId)
      .setContent(content).setPriority(InjectionPriority.INJECTION_PRIORITY_IMMEDIATE).setSource("system")).build());
  }

  public void shutdown(String reason) {
    send(ServerMessage.newBuilder().setShutdown(Shutdown.newBuilder().setReason(reason)).build());
  }

  public void packToolOutput(String requestId, String outputJson) {
    send(ServerMessage.newBuilder().setPackToolResult(PackToolResult.newBuilder()
      .setRequestId(requestId).setOutputJson(outputJson)).build());
  }

  public void packToolError(String requestId, String error) {
    send(ServerMessage.newBuilder().setPackToolResult(PackToolResult.newBuilder()
      .setRequestId(requestId).setError(error)).build());
  }

  /**
   * Returns once the agent has processed everything sent before: sends an InjectContext (which
   * every agent acknowledges, accepting or not) and waits for its ack. The agent handles a
   * stream's messages in order, so the ack proves the earlier ones were seen.
   */
  public void sync() {
    String id = "sync-" + syncs.incrementAndGet();
    inject(id, "sync");
    AgentMessage m = next();
    if (!m.hasInjectionAck() || !m.getInjectionAck().getInjectionId().equals(id)) {
      throw new AssertionError("expected the ack of " + id + ", got " + m);
    }
  }

  // ---- what the agent did ----------------------------------------------------------------------

  /** The agent's RegisterAgent (waits for it). */
  public RegisterAgent register() {
    try {
      return registered.get(FakeGateway.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("the agent sent no RegisterAgent", e);
    }
  }

  /** The next message other than a heartbeat, within {@link FakeGateway#WAIT}. */
  public AgentMessage next() {
    return next(FakeGateway.WAIT);
  }

  public AgentMessage next(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        AgentMessage m = inbox.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
        if (m == null) {
          throw new AssertionError("the agent sent nothing (besides heartbeats) within " + within.toMillis() + " ms");
        }
        if (!m.hasHeartbeat()) {
          return m;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next message, which must be a MessageResponse. */
  public MessageResponse nextResponse() {
    AgentMessage m = next();
    if (!m.hasResponse()) {
      throw new AssertionError("expected a MessageResponse, got " + m);
    }
    return m.getResponse();
  }

  /** Responses up to and including the next terminal one. */
  public List<MessageResponse> responsesUntilTerminal() {
    List<MessageResponse> out = new ArrayList<>();
    while (true) {
      MessageResponse r = nextResponse();
      out.add(r);
      if (isTerminal(r)) {
        return out;
      }
    }
  }

  public static boolean isTerminal(MessageResponse r) {
    return r.hasDone() || r.getEventCase() == MessageResponse.EventCase.ERROR || r.hasCancelled();
  }

  /** Asserts the agent sends nothing but heartbeats for {@code within}. */
  public void expectSilence(Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        AgentMessage m = inbox.poll(left, TimeUnit.NANOSECONDS);
        if (m != null && !m.hasHeartbeat()) {
          throw new AssertionError("expected silence, the agent sent " + m);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Everything received on this stream, heartbeats included, in order. */
  public List<AgentMessage> received() {
    return new ArrayList<>(received);
  }

  /** How the stream ended, waiting up to {@code within}. */
  public String awaitEnd(Duration within) {
    try {
      return ended.get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the stream did not end within " + within.toMillis() + " ms");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  public boolean isEnded() {
    return ended.isDone();
  }
}
