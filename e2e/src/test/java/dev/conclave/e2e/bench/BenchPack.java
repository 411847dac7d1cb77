package dev.conclave.e2e.bench;

import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.ExecuteToolResponse;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackServiceGrpcClient;
import dev.conclave.proto.coven.PackWelcome;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;

import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The benchmark's tool pack, written straight on vertx-grpc-client as a pack author would without
 * the SDK: it opens {@code PackService/Register} with a manifest of one tool, and answers every
 * {@code ExecuteToolRequest} at once with a unary {@code ToolResult} whose output is the call's
 * input. It runs on the Vert.x instance it is given (the benchmark gives it one event loop of its
 * own, so its CPU time can be told apart from the agents').
 */
final class BenchPack {

  static final String INPUT_SCHEMA = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},\"seq\":{\"type\":\"integer\"}}}";
  private static final String WELCOME_HEADER = "pack-welcome-bin";

  private final Vertx vertx;
  private final SocketAddress address;
  private final String bearer;
  private final LongAdder answered = new LongAdder();
  private final LongAdder failedResults = new LongAdder();
  private final AtomicInteger printed = new AtomicInteger();
  private final Promise<String> ended = Promise.promise();
  private GrpcClient client;
  private GrpcClientRequest<PackManifest, ExecuteToolRequest> register;
  private volatile Thread thread;
  private volatile boolean closing;

  BenchPack(Vertx vertx, SocketAddress address, String token) {
    this.vertx = vertx;
    this.address = address;
    this.bearer = "Bearer " + token;
  }

  /** Registers {@code toolName} under {@code packId}; completes when the node welcomed the pack and gave it the name. */
  Future<PackWelcome> register(String packId, String toolName) {
    Promise<PackWelcome> welcomed = Promise.promise();
    vertx.runOnContext(v -> {
      thread = Thread.currentThread();
      client = GrpcClient.client(vertx);
      client.request(address, PackServiceGrpcClient.Register).compose(req -> {
        register = req;
        req.headers().set("authorization", bearer);
        req.end(PackManifest.newBuilder().setPackId(packId).setVersion("1.0.0").addTools(ToolDefinition.newBuilder()
          .setName(toolName).setDescription("echoes its input").setInputSchemaJson(INPUT_SCHEMA)).build());
        return req.response();
      }).onComplete(ar -> {
        if (ar.failed()) {
          welcomed.tryFail(ar.cause());
          return;
        }
        var resp = ar.result();
        resp.handler(this::answer);
        resp.endHandler(v2 -> end("stream ended: " + resp.status() + " " + resp.statusMessage(), welcomed));
        resp.exceptionHandler(err -> end("stream failed: " + err, welcomed));
        String header = resp.headers().get(WELCOME_HEADER);
        if (header == null) {
          return; // refused: the end handler reports the status
        }
        try {
          PackWelcome welcome = PackWelcome.parseFrom(Base64.getDecoder().decode(header));
          if (welcome.getRejectedToolsList().contains(toolName)) {
            welcomed.tryFail("tool '" + toolName + "' is owned by another pack");
          } else {
            welcomed.tryComplete(welcome);
          }
        } catch (Exception e) {
          welcomed.tryFail(new IllegalStateException(WELCOME_HEADER + " is not a PackWelcome: " + header, e));
        }
      });
    });
    return welcomed.future();
  }

  private void answer(ExecuteToolRequest call) {
    ExecuteToolResponse result = ExecuteToolResponse.newBuilder().setRequestId(call.getRequestId()).setOutputJson(call.getInputJson()).build();
    client.request(address, PackServiceGrpcClient.ToolResult)
      .compose(req -> {
        req.headers().set("authorization", bearer);
        return req.send(result);
      })
      .compose(resp -> resp.last())
      .onComplete(ar -> {
        if (ar.succeeded()) {
          answered.increment();
        } else {
          failedResults.increment();
          if (printed.incrementAndGet() <= 10) {
            System.err.println("bench: pack: ToolResult for " + call.getRequestId() + " failed: " + ar.cause());
          }
        }
      });
  }

  private void end(String why, Promise<PackWelcome> welcomed) {
    welcomed.tryFail(why);
    if (!closing) {
      System.err.println("bench: pack: " + why);
    }
    ended.tryComplete(why);
  }

  /** Results the node took. */
  long answered() {
    return answered.sum();
  }

  /** ToolResult calls that failed (every one is also printed, up to 10). */
  long failedResults() {
    return failedResults.sum();
  }

  /** True when the Register stream ended while the benchmark still needed it. */
  boolean lost() {
    return ended.future().isComplete() && !closing;
  }

  /** The event-loop thread the pack runs on. */
  Thread thread() {
    return thread;
  }

  Future<Void> close() {
    closing = true;
    Promise<Void> closed = Promise.promise();
    vertx.runOnContext(v -> {
      if (register != null) {
        try {
          register.cancel();
        } catch (RuntimeException alreadyEnded) {
          // the node ended it
        }
      }
      (client == null ? Future.<Void>succeededFuture() : client.close()).onComplete(ar -> closed.complete());
    });
    return closed.future();
  }
}
