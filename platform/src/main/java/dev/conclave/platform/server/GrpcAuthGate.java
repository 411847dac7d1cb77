package dev.conclave.platform.server;

import dev.conclave.platform.admission.ConnectionGuard;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.grpc.common.GrpcHeaderNames;
import io.vertx.grpc.server.GrpcServer;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The one gRPC interceptor: every call on the gRPC port passes here before any service sees it.
 * A call without valid credentials (a bearer token, or another kind a role accepts) ends with
 * {@code UNAUTHENTICATED} and reaches no handler; the verified {@link Caller} goes on to the service
 * through the {@link CallerHandoff}.
 *
 * <p>Only the standard health and reflection services are open, so that probes and off-the-shelf
 * tools (grpc_health_probe, grpcurl) work; they reveal liveness and the public schema, nothing more.
 */
public final class GrpcAuthGate implements Handler<HttpServerRequest> {

  static final Set<String> PUBLIC_SERVICES = Set.of(
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection");

  private final GrpcServer server;
  private final TokenService tokens;
  private final List<GrpcCredentials> alternatives;
  private final Gatekeeping handoff;
  private final ConnectionGuard guard;
  private final io.vertx.core.Vertx vertx;

  /** What the gate reports to: the caller hand-over, and the audit of failed authentications. */
  private record Gatekeeping(EdgeSecurity edge) {
    void put(io.vertx.core.MultiMap headers, Caller caller) {
      edge.callers().put(headers, caller);
    }

    void authenticationFailed(HttpServerRequest request, ConclaveException e) {
      edge.authenticationFailed(request.path(), e, request.remoteAddress() == null ? "" : request.remoteAddress().toString());
    }
  }

  public GrpcAuthGate(io.vertx.core.Vertx vertx, GrpcServer server, TokenService tokens, List<GrpcCredentials> alternatives, EdgeSecurity edge,
                      ConnectionGuard guard) {
    this.vertx = vertx;
    this.server = server;
    this.guard = guard;
    this.tokens = tokens;
    this.alternatives = List.copyOf(alternatives);
    this.handoff = new Gatekeeping(edge);
  }

  @Override
  public void handle(HttpServerRequest received) {
    CallerHandoff.strip(received.headers());
    boolean open = isPublic(received.path());
    // every message's compressed flag is read before Vert.x deframes it
    HttpServerRequest request = StrictFrames.check(received, open);
    // the open services are decoded by Vert.x, which inflates without bound: they take no compression
    Optional<ConclaveException> encoding = GrpcMessages.admit(request.headers(), !open);
    if (encoding.isPresent()) {
      request.response().putHeader(GrpcHeaderNames.GRPC_ACCEPT_ENCODING, GrpcMessages.acceptEncoding(!open));
      GrpcFailures.reject(request.response(), encoding.get());
      return;
    }
    if (open) {
      answerMissingMessage(request);
      server.handle(request);
      return;
    }
    String authorization = request.getHeader("authorization");
    if (authorization == null) {
      for (GrpcCredentials credentials : alternatives) {
        if (credentials.present(request)) {
          // its messages wait while the signature is checked (against PostgreSQL); an ended request has none
          boolean hold = !request.isEnded();
          if (hold) {
            request.pause();
          }
          Future<Caller> verified;
          try {
            verified = credentials.verify(request);
          } catch (RuntimeException e) {
            verified = Future.failedFuture(e);
          }
          verified.onComplete(ar -> {
            // a client that cancelled while its credentials were checked is gone: nothing to admit or answer
            boolean gone = request.response().closed();
            if (ar.succeeded()) {
              if (!gone && admitted(request, ar.result())) {
                handoff.put(request.headers(), ar.result());
                server.handle(request);
                if (hold) {
                  request.resume();
                }
              }
            } else {
              ConclaveException e = Failures.classify(ar.cause());
              handoff.authenticationFailed(request, e);
              if (!gone) {
                GrpcFailures.reject(request.response(), e);
              }
            }
          });
          return;
        }
      }
    }
    Future<Caller> verified = tokens.authenticateHeader(authorization);
    if (verified.isComplete()) {
      // the token was known here: no pause, no hop
      handleVerified(request, verified);
      return;
    }
    // the first call of a token on this node reads its record; its messages wait meanwhile
    boolean hold = !request.isEnded();
    if (hold) {
      request.pause();
    }
    verified.onComplete(ar -> {
      handleVerified(request, verified);
      if (hold && !request.response().closed()) {
        request.resume();
      }
    });
  }

  private void handleVerified(HttpServerRequest request, Future<Caller> verified) {
    // a client that cancelled while its token's record was read is gone: nothing to admit or answer
    // (handing Vert.x's server a stream that has ended throws 'Request has already been read')
    boolean gone = request.response().closed();
    if (verified.failed()) {
      ConclaveException e = Failures.classify(verified.cause());
      handoff.authenticationFailed(request, e);
      if (!gone) {
        GrpcFailures.reject(request.response(), e);
      }
      return;
    }
    if (!gone && admitted(request, verified.result())) {
      handoff.put(request.headers(), verified.result());
      server.handle(request);
    }
  }

  /** Whether the caller is within its limits on this node; if not, the call is refused here. */
  private boolean admitted(HttpServerRequest request, Caller caller) {
    Optional<ConclaveException> refused = guard.admit(request, caller);
    refused.ifPresent(e -> GrpcFailures.reject(request.response(), e));
    return refused.isEmpty();
  }

  /**
   * The open services are Vert.x's: a call to one that ends without a whole request message (none,
   * or a frame cut short) would wait for one until the client gave up. Here a call that ended with
   * no frame is answered at once, and one that ended with bytes but no answer within
   * {@link #OPEN_ANSWER_MS} (Vert.x answers a whole message at once; its health checks time out
   * after 1 s) as malformed; both {@code INVALID_ARGUMENT}.
   */
  private void answerMissingMessage(HttpServerRequest request) {
    request.end().onSuccess(v -> {
      if (request.bytesRead() < FRAME_HEADER_BYTES) {
        rejectUnanswered(request, "message_missing", "the call ended without a request message");
      } else {
        vertx.setTimer(OPEN_ANSWER_MS, t -> rejectUnanswered(request, "malformed_message", "the call ended without a whole request message"));
      }
    });
  }

  private static void rejectUnanswered(HttpServerRequest request, String code, String detail) {
    if (!request.response().ended() && !request.response().closed() && !request.response().headWritten()) {
      GrpcFailures.reject(request.response(), ConclaveException.invalid(code, detail));
    }
  }

  static final long OPEN_ANSWER_MS = 2_000;

  /** A gRPC message frame starts with a flag byte and a four-byte length. */
  private static final int FRAME_HEADER_BYTES = 5;

  static boolean isPublic(String path) {
    // gRPC paths are /<package.Service>/<Method>
    int slash = path.indexOf('/', 1);
    return slash > 1 && PUBLIC_SERVICES.contains(path.substring(1, slash));
  }
}
