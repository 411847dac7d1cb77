package dev.conclave.agent.pack;

import com.google.protobuf.Empty;
import dev.conclave.agent.Endpoint;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.ExecuteToolResponse;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackServiceGrpcService;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.grpc.common.GrpcHeaderNames;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A scriptable stand-in for Conclave's {@code coven.PackService}, on the real Vert.x gRPC server over
 * 127.0.0.1. It records every Register stream and every ToolResult; tests play the server's side
 * through {@link PackStream}. By default it welcomes every manifest and accepts every result.
 */
final class FakePackHost implements AutoCloseable {

  /** Decides how the host answers a manifest. Runs on the server's event loop. */
  @FunctionalInterface
  interface RegisterScript {
    void onRegister(PackStream stream, PackManifest manifest);
  }

  /** How the host answers one ToolResult: a status other than OK, with a message. */
  record Answer(GrpcStatus status, String message) {
    static final Answer OK = new Answer(GrpcStatus.OK, null);
  }

  /** How long a wait for the pack's next step lasts: {@link Wait#DEFAULT}. */
  static final Duration WAIT = Wait.DEFAULT;

  private final Vertx vertx;
  private final LinkedBlockingQueue<PackStream> streams = new LinkedBlockingQueue<>();
  private final LinkedBlockingQueue<ExecuteToolResponse> accepted = new LinkedBlockingQueue<>();
  private final List<ExecuteToolResponse> attempts = new CopyOnWriteArrayList<>();
  private final List<String> authorizations = new CopyOnWriteArrayList<>();
  private volatile RegisterScript script = (stream, manifest) -> stream.welcome();
  private volatile Function<ExecuteToolResponse, Answer> results = r -> Answer.OK;
  private volatile String requiredToken;
  private volatile boolean holding;
  private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> held = new java.util.concurrent.ConcurrentLinkedQueue<>();
  private HttpServer http;

  private FakePackHost(Vertx vertx) {
    this.vertx = vertx;
  }

  static FakePackHost start(Vertx vertx) {
    FakePackHost h = new FakePackHost(vertx);
    h.listen();
    return h;
  }

  private void listen() {
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.callHandler(PackServiceGrpcService.Register, request -> {
      PackStream s = new PackStream(request, Vertx.currentContext());
      streams.add(s);
      request.last().onSuccess(manifest -> {
        s.registered(manifest);
        script.onRegister(s, manifest);
      });
    });
    grpc.callHandler(PackServiceGrpcService.ToolResult, request -> request.last().onSuccess(result -> {
      attempts.add(result);
      if (holding) {
        Context context = Vertx.currentContext();
        held.add(() -> context.runOnContext(v -> answer(request, result)));
      } else {
        answer(request, result);
      }
    }));
    http = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
      .requestHandler(req -> {
        String auth = req.getHeader("authorization");
        authorizations.add(String.valueOf(auth));
        String token = requiredToken;
        if (token != null && !("Bearer " + token).equals(auth)) {
          // like the real auth gate: a trailers-only UNAUTHENTICATED answer
          req.response().setStatusCode(200)
            .putHeader("content-type", "application/grpc")
            .putHeader(GrpcHeaderNames.GRPC_STATUS, String.valueOf(GrpcStatus.UNAUTHENTICATED.code))
            .putHeader(GrpcHeaderNames.GRPC_MESSAGE, "token%20rejected")
            .end();
          return;
        }
        grpc.handle(req);
      });
    Wait.result(http.listen());
  }

  private void answer(GrpcServerRequest<ExecuteToolResponse, Empty> request, ExecuteToolResponse result) {
    Answer a = results.apply(result);
    if (a.status() == GrpcStatus.OK) {
      accepted.add(result);
      request.response().end(Empty.getDefaultInstance());
    } else {
      request.response().status(a.status()).statusMessage(a.message()).end();
    }
  }

  /** From now on, ToolResult calls get no answer until {@link #releaseResults()}. */
  void holdResults() {
    holding = true;
  }

  /** Answers the held ToolResult calls and stops holding new ones. */
  void releaseResults() {
    holding = false;
    Runnable r;
    while ((r = held.poll()) != null) {
      r.run();
    }
  }

  Endpoint endpoint() {
    return new Endpoint("127.0.0.1", http.actualPort());
  }

  FakePackHost onRegister(RegisterScript script) {
    this.script = script;
    return this;
  }

  /** How ToolResult calls are answered; OK for all by default. */
  FakePackHost onResult(Function<ExecuteToolResponse, Answer> results) {
    this.results = results;
    return this;
  }

  FakePackHost requireToken(String token) {
    this.requiredToken = token;
    return this;
  }

  List<String> authorizations() {
    return new ArrayList<>(authorizations);
  }

  /** The next Register call. */
  PackStream nextStream() {
    return poll(streams, WAIT, "no Register call reached the pack host");
  }

  void expectNoStream(Duration within) {
    PackStream s = pollOrNull(streams, within);
    if (s != null) {
      throw new AssertionError("unexpected Register call reached the pack host");
    }
  }

  /** The next result the host accepted (answered OK). */
  ExecuteToolResponse nextResult() {
    return poll(accepted, WAIT, "no tool result reached the pack host");
  }

  void expectNoResult(Duration within) {
    ExecuteToolResponse r = pollOrNull(accepted, within);
    if (r != null) {
      throw new AssertionError("unexpected tool result " + r);
    }
  }

  /** Every ToolResult call received, whatever the answer, in order. */
  List<ExecuteToolResponse> attempts() {
    return new ArrayList<>(attempts);
  }

  @Override
  public void close() {
    if (http != null) {
      Wait.result(http.close());
    }
  }

  private static <T> T poll(LinkedBlockingQueue<T> queue, Duration within, String failure) {
    T t = pollOrNull(queue, within);
    if (t == null) {
      throw new AssertionError(failure + " within " + within.toMillis() + " ms");
    }
    return t;
  }

  private static <T> T pollOrNull(LinkedBlockingQueue<T> queue, Duration within) {
    try {
      return queue.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
