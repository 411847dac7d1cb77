package dev.conclave.gateway.support;

import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.AgentMetadata;
import dev.conclave.proto.coven.CovenControlGrpcClient;
import dev.conclave.proto.coven.Heartbeat;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.RegisterAgent;
import dev.conclave.proto.coven.ServerMessage;
import dev.conclave.proto.coven.Welcome;

import io.vertx.core.buffer.Buffer;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.common.GrpcMessageDecoder;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.core.net.SocketAddress;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static dev.conclave.platform.testing.Await.await;

/**
 * A scripted Coven agent on a real AgentStream: the test decides every message it sends and reads
 * every message the gateway sends. Blocking helpers; tests only.
 */
public final class RawAgent implements AutoCloseable {

  /** How the gateway ended the stream. */
  /** How the stream ended; {@code rawMessage} is grpc-message as it came over the wire (or empty). */
  public record End(GrpcStatus status, String message, String rawMessage) {

    public End(GrpcStatus status, String message) {
      this(status, message, "");
    }
  }

  private static final ServiceMethod<Buffer, Buffer> RAW = ServiceMethod.client(
    CovenControlGrpcClient.AgentStream.serviceName(), "AgentStream", GrpcMessageEncoder.IDENTITY, GrpcMessageDecoder.IDENTITY);

  private final BlockingQueue<ServerMessage> received = new LinkedBlockingQueue<>();
  private final CompletableFuture<End> end = new CompletableFuture<>();
  private final GrpcClientRequest<AgentMessage, ServerMessage> request;
  private final GrpcClientRequest<Buffer, Buffer> rawRequest;

  private RawAgent(GrpcClientRequest<AgentMessage, ServerMessage> request, GrpcClientRequest<Buffer, Buffer> rawRequest) {
    this.request = request;
    this.rawRequest = rawRequest;
  }

  /** Opens an AgentStream; {@code token} may be null to send no credentials. */
  public static RawAgent open(GrpcClient client, SocketAddress address, String token) {
    GrpcClientRequest<AgentMessage, ServerMessage> req = await(client.request(address, CovenControlGrpcClient.AgentStream));
    if (token != null) {
      req.headers().set("authorization", "Bearer " + token);
    }
    RawAgent agent = new RawAgent(req, null);
    req.response().onComplete(ar -> {
      if (ar.failed()) {
        agent.end.complete(new End(GrpcStatus.UNAVAILABLE, String.valueOf(ar.cause().getMessage())));
        return;
      }
      GrpcClientResponse<AgentMessage, ServerMessage> resp = ar.result();
      resp.handler(agent.received::add);
      resp.endHandler(v -> agent.end.complete(new End(resp.status(), message(resp), rawMessage(resp))));
      resp.exceptionHandler(err -> agent.end.complete(new End(resp.status() == null ? GrpcStatus.UNKNOWN : resp.status(), String.valueOf(err.getMessage()))));
    });
    return agent;
  }

  /** grpc-message exactly as sent, from the trailers or (trailers-only answer) the headers. */
  static String rawMessage(GrpcClientResponse<?, ?> resp) {
    String raw = resp.trailers() == null ? null : resp.trailers().get("grpc-message");
    if (raw == null && resp.headers() != null) {
      raw = resp.headers().get("grpc-message");
    }
    return raw == null ? "" : raw;
  }

  /** The status message, from the headers (trailers-only answer) or the trailers. */
  static String message(GrpcClientResponse<?, ?> resp) {
    String m = resp.statusMessage();
    if (m == null && resp.trailers() != null && resp.trailers().get("grpc-message") != null) {
      m = io.netty.handler.codec.http.QueryStringDecoder.decodeComponent(resp.trailers().get("grpc-message"), java.nio.charset.StandardCharsets.UTF_8);
    }
    return m == null ? "" : m;
  }

  /** Opens an AgentStream whose messages the test writes as raw bytes (for garbage input). */
  public static RawAgent openRaw(GrpcClient client, SocketAddress address, String token) {
    GrpcClientRequest<Buffer, Buffer> req = await(client.request(address, RAW));
    req.headers().set("authorization", "Bearer " + token);
    RawAgent agent = new RawAgent(null, req);
    req.response().onComplete(ar -> {
      if (ar.failed()) {
        agent.end.complete(new End(GrpcStatus.UNAVAILABLE, String.valueOf(ar.cause().getMessage())));
        return;
      }
      var resp = ar.result();
      resp.handler(b -> {
        try {
          agent.received.add(ServerMessage.parseFrom(b.getBytes()));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      resp.endHandler(v -> agent.end.complete(new End(resp.status(), message(resp), rawMessage(resp))));
      resp.exceptionHandler(err -> agent.end.complete(new End(resp.status() == null ? GrpcStatus.UNKNOWN : resp.status(), String.valueOf(err.getMessage()))));
    });
    return agent;
  }

  public static RegisterAgent.Builder registration(String agentId, String... features) {
    return RegisterAgent.newBuilder()
      .setAgentId(agentId)
      .setName("agent " + agentId)
      .addCapabilities("chat")
      .setMetadata(AgentMetadata.newBuilder().setHostname("test-host").setOs("linux").setBackend("direct")
        .setWorkingDirectory("/work/" + agentId).addWorkspaces("dev"))
      .addAllProtocolFeatures(List.of(features));
  }

  /** Registers and returns the Welcome; fails the test if anything else arrives. */
  public Welcome register(RegisterAgent.Builder registration) {
    send(AgentMessage.newBuilder().setRegister(registration).build());
    ServerMessage first = next();
    if (!first.hasWelcome()) {
      throw new AssertionError("expected Welcome, got " + first);
    }
    return first.getWelcome();
  }

  public void send(AgentMessage message) {
    await(request.write(message));
  }

  public void sendRaw(Buffer bytes) {
    await(rawRequest.write(bytes));
  }

  public void respond(String requestId, MessageResponse.Builder event) {
    send(AgentMessage.newBuilder().setResponse(event.setRequestId(requestId)).build());
  }

  public void heartbeat() {
    send(AgentMessage.newBuilder().setHeartbeat(Heartbeat.newBuilder().setTimestampMs(System.currentTimeMillis())).build());
  }

  /** The next message from the gateway, waiting up to 10 s. */
  public ServerMessage next() {
    return next(10_000);
  }

  public ServerMessage next(long timeoutMs) {
    try {
      ServerMessage m = received.poll(timeoutMs, TimeUnit.MILLISECONDS);
      if (m == null) {
        throw new AssertionError("no message from the gateway within " + timeoutMs + " ms (stream end: " + end.getNow(null) + ")");
      }
      return m;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next message if one arrives within {@code timeoutMs}, else null. */
  public ServerMessage poll(long timeoutMs) {
    try {
      return received.poll(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** How the gateway ended the stream, waiting up to 10 s. */
  public End awaitEnd() {
    try {
      return end.get(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the gateway did not end the stream", e);
    }
  }

  public boolean ended() {
    return end.isDone();
  }

  /** The HTTP/2 connection this stream runs on (streams opened by one client may share it). */
  public io.vertx.core.http.HttpConnection connection() {
    return request != null ? request.connection() : rawRequest.connection();
  }

  /** Half-closes the agent's side (a clean disconnect). */
  public void finish() {
    if (request != null) {
      request.end();
    } else {
      rawRequest.end();
    }
  }

  /** Resets the stream, as a crashed agent's connection would. */
  public void reset() {
    if (request != null) {
      request.cancel();
    } else {
      rawRequest.cancel();
    }
  }

  @Override
  public void close() {
    if (!end.isDone()) {
      try {
        reset();
      } catch (RuntimeException ignored) {
        // already gone
      }
    }
  }

}
