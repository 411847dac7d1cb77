package dev.conclave.agent.pack;

import dev.conclave.contract.ExecuteToolRequestTraces;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackWelcome;
import io.vertx.core.Context;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerRequest;

import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** One Register call as the fake pack host sees it. Test-thread methods block for bounded times. */
final class PackStream {

  private final GrpcServerRequest<PackManifest, ExecuteToolRequest> request;
  private final Context context;
  private final CompletableFuture<PackManifest> manifest = new CompletableFuture<>();
  private final CompletableFuture<String> ended = new CompletableFuture<>();

  PackStream(GrpcServerRequest<PackManifest, ExecuteToolRequest> request, Context context) {
    this.request = request;
    this.context = context;
    request.errorHandler(e -> ended.complete("error " + e));
    request.exceptionHandler(t -> ended.complete("exception " + t));
    request.connection().closeHandler(v -> ended.complete("connection closed"));
  }

  void registered(PackManifest m) {
    manifest.complete(m);
  }

  /** The pack's manifest (waits for it). */
  PackManifest manifest() {
    try {
      return manifest.get(FakePackHost.WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("the pack sent no manifest", e);
    }
  }

  /** Sends the response headers with a padded welcome naming the rejected tools. */
  void welcome(String... rejected) {
    welcomeHeader(Base64.getEncoder().encodeToString(welcomeBytes(rejected)));
  }

  /** The same, with the base64 padding left out. */
  void welcomeUnpadded(String... rejected) {
    welcomeHeader(Base64.getEncoder().withoutPadding().encodeToString(welcomeBytes(rejected)));
  }

  void welcomeHeader(String value) {
    context.runOnContext(v -> {
      request.response().headers().set("pack-welcome-bin", value);
      request.response().writeHead();
    });
  }

  private byte[] welcomeBytes(String... rejected) {
    return PackWelcome.newBuilder().setPackId(manifest().getPackId()).addAllRejectedTools(List.of(rejected))
      .build().toByteArray();
  }

  /** Sends one call of a tool. */
  void call(String requestId, String toolName, String inputJson) {
    call(requestId, toolName, inputJson, Map.of());
  }

  /** Sends one call of a tool with a trace context, as a tracing pack host does (conclave_trace.proto). */
  void call(String requestId, String toolName, String inputJson, Map<String, String> traceContext) {
    context.runOnContext(v -> {
      try {
        request.response().write(ExecuteToolRequestTraces.attach(ExecuteToolRequest.newBuilder()
          .setRequestId(requestId).setToolName(toolName).setInputJson(inputJson), traceContext).build());
      } catch (IllegalStateException gone) {
        // the pack side is gone; the test sees that through ended()
      }
    });
  }

  /** Ends the call from the server's side with a status (trailers-only when no headers went out). */
  void endWith(GrpcStatus status, String message) {
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
  void dropConnection() {
    context.runOnContext(v -> request.connection().close());
  }

  /** How the call ended, waiting up to {@code within}. */
  String awaitEnd(Duration within) {
    try {
      return ended.get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("the Register call did not end within " + within.toMillis() + " ms");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
