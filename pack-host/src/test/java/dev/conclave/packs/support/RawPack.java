package dev.conclave.packs.support;

import com.google.protobuf.Empty;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.ExecuteToolResponse;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackServiceGrpcClient;
import dev.conclave.proto.coven.PackWelcome;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.client.GrpcClientResponse;
import io.vertx.grpc.common.GrpcStatus;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static dev.conclave.platform.testing.Await.await;

/**
 * A scripted tool pack on a real {@code PackService.Register} stream: the test reads every call the
 * pack host sends and decides every result. Blocking helpers; tests only.
 */
public final class RawPack implements AutoCloseable {

  /** How the server ended the stream. */
  public record End(GrpcStatus status, String message) {
  }

  private final GrpcCalls grpc;
  private final String token;
  private final BlockingQueue<ExecuteToolRequest> calls = new LinkedBlockingQueue<>();
  private final CompletableFuture<PackWelcome> welcome = new CompletableFuture<>();
  private final CompletableFuture<End> end = new CompletableFuture<>();
  private GrpcClientRequest<PackManifest, ExecuteToolRequest> request;

  private RawPack(GrpcCalls grpc, String token) {
    this.grpc = grpc;
    this.token = token;
  }

  /** Opens Register with {@code manifest}; does not wait for the answer. */
  public static RawPack open(GrpcCalls grpc, String token, PackManifest manifest) {
    RawPack pack = new RawPack(grpc, token);
    pack.request = await(grpc.open(PackServiceGrpcClient.Register, token == null ? null : GrpcCalls.bearer(token)));
    pack.request.response().onComplete(ar -> {
      if (ar.failed()) {
        pack.end.complete(new End(GrpcStatus.UNAVAILABLE, String.valueOf(ar.cause().getMessage())));
        pack.welcome.completeExceptionally(ar.cause());
        return;
      }
      GrpcClientResponse<PackManifest, ExecuteToolRequest> resp = ar.result();
      String header = resp.headers().get("pack-welcome-bin");
      if (header != null) {
        pack.welcome.complete(parseWelcome(header));
      }
      resp.handler(pack.calls::add);
      resp.endHandler(v -> pack.finished(resp));
      resp.exceptionHandler(err -> pack.finished(resp));
    });
    pack.request.end(manifest);
    return pack;
  }

  /** Registers and waits for the PackWelcome; fails the test if the server refuses. */
  public static RawPack register(GrpcCalls grpc, String token, PackManifest manifest) {
    RawPack pack = open(grpc, token, manifest);
    pack.welcome();
    return pack;
  }

  public PackWelcome welcome() {
    try {
      return welcome.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no PackWelcome (stream end: " + end.getNow(null) + ")", e);
    }
  }

  /** The next call from the pack host, waiting up to 10 s. */
  public ExecuteToolRequest nextCall() {
    return nextCall(10_000);
  }

  public ExecuteToolRequest nextCall(long timeoutMs) {
    try {
      ExecuteToolRequest call = calls.poll(timeoutMs, TimeUnit.MILLISECONDS);
      if (call == null) {
        throw new AssertionError("no call within " + timeoutMs + " ms (stream end: " + end.getNow(null) + ")");
      }
      return call;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  public GrpcCalls.Outcome<Empty> answer(String requestId, String outputJson) {
    return result(ExecuteToolResponse.newBuilder().setRequestId(requestId).setOutputJson(outputJson).build());
  }

  public GrpcCalls.Outcome<Empty> fail(String requestId, String error) {
    return result(ExecuteToolResponse.newBuilder().setRequestId(requestId).setError(error).build());
  }

  public GrpcCalls.Outcome<Empty> result(ExecuteToolResponse response) {
    return grpc.unary(PackServiceGrpcClient.ToolResult, response, GrpcCalls.bearer(token));
  }

  public End awaitEnd() {
    try {
      return end.get(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the server did not end the pack's stream", e);
    }
  }

  public boolean ended() {
    return end.isDone();
  }

  /** Cancels the stream, as a crashed pack's connection would. */
  public void reset() {
    request.cancel();
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

  public static ToolDefinition tool(String name, String... capabilities) {
    return ToolDefinition.newBuilder().setName(name).setDescription("test tool " + name)
      .setInputSchemaJson("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
      .addAllRequiredCapabilities(java.util.List.of(capabilities)).build();
  }

  public static PackManifest manifest(String packId, ToolDefinition... tools) {
    return PackManifest.newBuilder().setPackId(packId).setVersion("1.0.0").addAllTools(java.util.List.of(tools)).build();
  }

  private void finished(GrpcClientResponse<?, ?> resp) {
    String message = resp.statusMessage();
    if (message == null && resp.trailers() != null && resp.trailers().get("grpc-message") != null) {
      message = io.netty.handler.codec.http.QueryStringDecoder.decodeComponent(resp.trailers().get("grpc-message"), StandardCharsets.UTF_8);
    }
    End e = new End(resp.status() == null ? GrpcStatus.UNKNOWN : resp.status(), message == null ? "" : message);
    end.complete(e);
    welcome.completeExceptionally(new AssertionError("stream ended: " + e));
  }

  private static PackWelcome parseWelcome(String base64) {
    try {
      return PackWelcome.parseFrom(Base64.getDecoder().decode(base64));
    } catch (Exception e) {
      throw new AssertionError("pack-welcome-bin is not a base64 PackWelcome: " + base64, e);
    }
  }
}
