package dev.conclave.gateway.sessions;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.platform.server.GrpcFailures;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.CovenControlGrpcService;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;

import java.util.Optional;
import java.util.function.Consumer;

/**
 * One session's {@code AgentStream} seen from the gateway: the frames read from the agent (decoded
 * here), writes to the agent, the pause of its reads, and the stream's end. What it holds (the last write, paused, ended) is the stream's own
 * state; the session's state it only reads. Used on the session's context.
 */
final class AgentLink {

  /** How long the stream's end waits for earlier writes the agent has not taken; then the stream is reset. */
  static final long END_AFTER_WRITES_MS = 10_000;

  private final GrpcServerRequest<AgentMessage, ServerMessage> request;
  private final GrpcServerResponse<AgentMessage, ServerMessage> response;
  private final Vertx vertx;
  private final SessionView session;
  /** The stream failed, ended or was reset: the session closes with this reason. */
  private final Consumer<String> gone;
  private boolean inboundPaused;
  private boolean ended;
  /** The last write to the agent; the stream's end waits for it ({@link #end}). */
  private Future<Void> lastWrite = Future.succeededFuture();

  AgentLink(GrpcServerRequest<AgentMessage, ServerMessage> request, Vertx vertx, SessionView session, Consumer<String> gone) {
    this.request = request;
    this.response = request.response();
    this.vertx = vertx;
    this.session = session;
    this.gone = gone;
  }

  /**
   * Wires the stream: each message the agent sends goes to {@code messages}; a frame that cannot be
   * decoded, or is too large, to {@code bad} (while the session is open); the stream's end, reset or
   * failure closes the session.
   */
  void listen(EdgeSecurity edge, Consumer<AgentMessage> messages, Consumer<ConclaveException> bad) {
    // frames are decoded here, not by Vert.x, so that garbage gets INVALID_ARGUMENT instead of a
    // reset, and a compressed frame is inflated only up to the message limit
    request.messageHandler(frame -> {
      AgentMessage message;
      try {
        message = edge.messages().decode(frame, CovenControlGrpcService.AgentStream.decoder());
      } catch (ConclaveException e) {
        if (!session.closed()) {
          bad.accept(e);
        }
        return;
      }
      messages.accept(message);
    });
    edge.messages().bound(request, e -> {
      if (!session.closed()) {
        bad.accept(e);
      }
    });
    request.exceptionHandler(err -> gone.accept("stream failed: " + err.getMessage()));
    // a reset (the agent's process or connection went away) arrives as a gRPC error
    request.errorHandler(err -> gone.accept("stream reset by the agent: " + err));
    request.endHandler(v -> gone.accept("agent closed its stream"));
    response.exceptionHandler(err -> gone.accept("response stream failed: " + err.getMessage()));
  }

  /** Coven agents wait for response headers before they register. */
  void writeHead() {
    lastWrite = response.writeHead();
  }

  /** Writes to the agent; false when the stream is gone. */
  boolean send(ServerMessage message) {
    if (session.closed() || ended) {
      return false;
    }
    try {
      Future<Void> written = response.write(message);
      lastWrite = written;
      written.onFailure(err -> gone.accept("write failed: " + err.getMessage()));
      return true;
    } catch (RuntimeException streamGone) {
      // IllegalStateException, or Vert.x 5.0.7's NPE from a stream closed under the write
      gone.accept("stream gone: " + streamGone.getMessage());
      return false;
    }
  }

  boolean writeQueueFull() {
    return response.writeQueueFull();
  }

  void pauseInbound() {
    if (!inboundPaused) {
      inboundPaused = true;
      request.pause();
    }
  }

  /** Reads again, unless registration is still running (it resumes them itself when done). */
  void resumeInbound() {
    if (inboundPaused && !session.registering()) {
      inboundPaused = false;
      request.resume();
    }
  }

  /** The HTTP/2 connection, or null when it is gone. */
  HttpConnection connection() {
    return request.connection();
  }

  String remote() {
    return request.connection() == null || request.connection().remoteAddress() == null ? "" : request.connection().remoteAddress().toString();
  }

  /** Ends the stream once, with {@code status} when it names an error. */
  void end(Optional<ConclaveException> status) {
    if (!ended) {
      ended = true;
      endAfterWrites(status);
    }
  }

  /**
   * Ends the response once what was written to the agent before has gone out. Vert.x 5.0.7 queues
   * the trailers of an end behind writes the agent has not taken yet (it is slow, or stopped
   * reading) with no promise: when the agent then resets the stream, disposing of them throws a
   * NullPointerException in Netty's stream-close listener, which Netty logs at ERROR. Waiting keeps
   * the trailers out of that queue; an agent that has taken nothing within
   * {@link #END_AFTER_WRITES_MS} has its stream reset. A failed write means the stream is gone:
   * there is nothing left to end.
   */
  private void endAfterWrites(Optional<ConclaveException> status) {
    Runnable end = () -> {
      try {
        if (status.isPresent()) {
          GrpcFailures.end(response, status.get());
        } else {
          response.end();
        }
      } catch (RuntimeException alreadyEnded) {
        // the peer reset the stream first (IllegalStateException, or Vert.x 5.0.7's NPE from the
        // closed stream's write queue): the session's own cleanup must still run
      }
    };
    Future<Void> pending = lastWrite;
    if (pending.isComplete()) {
      end.run();
      return;
    }
    long timer = vertx.setTimer(END_AFTER_WRITES_MS, t -> {
      try {
        response.cancel();
      } catch (RuntimeException alreadyGone) {
        // reset or ended meanwhile
      }
    });
    pending.onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.succeeded()) {
        end.run();
      }
    });
  }
}
