package dev.conclave.platform.errors;

import io.vertx.core.http.StreamResetException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;

import org.slf4j.Logger;

import java.net.ConnectException;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

/**
 * Turns any throwable into a {@link ConclaveException} a caller may see. Failures we did not
 * anticipate become {@code internal} with a generic detail, and the cause is for the log.
 */
public final class Failures {

  /** The message of the exception the sql client's pool fails a waiter with when no connection came in time. */
  static final String POOL_WAIT_TIMEOUT = "Timeout waiting for connection";

  private Failures() {
  }

  public static ConclaveException classify(Throwable failure) {
    Throwable t = failure;
    while (t != null) {
      if (t instanceof ConclaveException ce) {
        // every server fault the caller sees carries a reference to quote
        return ce.kind() == ErrorKind.INTERNAL && !(ce instanceof Internal) ? new Internal(reference(), ce.code(), ce.detail()) : ce;
      }
      if (t instanceof com.google.protobuf.InvalidProtocolBufferException || t instanceof io.vertx.core.json.DecodeException
        || t instanceof io.vertx.grpc.common.CodecException) {
        return new ConclaveException(ErrorKind.INVALID_ARGUMENT, "malformed_message", "the message could not be decoded: " + t.getMessage());
      }
      if (t instanceof ConnectException || t instanceof ClosedConnectionException) {
        return new ConclaveException(ErrorKind.UNAVAILABLE, "db_unavailable", "the database is not reachable right now; retry");
      }
      if (t instanceof PgException pg && pg.getSqlState() != null && pg.getSqlState().startsWith("08")) {
        return new ConclaveException(ErrorKind.UNAVAILABLE, "db_unavailable", "the database connection failed; retry");
      }
      if (t instanceof PgException pg) {
        // a value PostgreSQL cannot take, or one that breaks a table's rule: the caller's input
        Optional<ConclaveException> refusal = PgRefusals.of(pg);
        if (refusal.isPresent()) {
          return refusal.get();
        }
      }
      if (t instanceof io.vertx.core.http.HttpClosedException) {
        // the client closed its connection before its request was done (mid-body, say): nobody is
        // left to answer, and nothing went wrong on our side
        return new ConclaveException(ErrorKind.UNAVAILABLE, "client_closed", "the client closed the connection");
      }
      if (t instanceof io.vertx.core.VertxException && POOL_WAIT_TIMEOUT.equals(t.getMessage())) {
        // the sql client's pool gave no connection in time: in practice the database is down (its
        // failing connection attempts leave the waiters waiting), or the node is overloaded
        return new ConclaveException(ErrorKind.UNAVAILABLE, "db_unavailable", "no database connection came free in time; retry");
      }
      if (t instanceof io.vertx.core.http.ConnectionPoolTooBusyException) {
        return new ConclaveException(ErrorKind.UNAVAILABLE, "overloaded", "the node is overloaded (database pool queue full); retry shortly");
      }
      if (t instanceof io.vertx.core.impl.NoStackTraceTimeoutException || t instanceof TimeoutException
        || (t instanceof io.vertx.core.eventbus.ReplyException re && re.failureType() == io.vertx.core.eventbus.ReplyFailure.TIMEOUT)) {
        return new ConclaveException(ErrorKind.UNAVAILABLE, "timeout", "an internal call timed out; retry");
      }
      if (t instanceof IllegalStateException ise && ise.getMessage() != null
        && (ise.getMessage().startsWith("The stream is failed") || ise.getMessage().equals("The stream has been closed"))) {
        // a write to a gRPC stream the peer already reset or ended (Vert.x's words): the peer's doing
        return new ConclaveException(ErrorKind.UNAVAILABLE, "stream_closed", "the stream was closed by the peer");
      }
      if (t instanceof ClassCastException) {
        // a JSON value of another type than the field takes ({"roles": 429}): the typed getters of
        // Vert.x's JsonObject cast, and the request's input is what did not fit
        return ConclaveException.invalid("value_invalid", "a value in the request has the wrong JSON type");
      }
      if (t instanceof StreamResetException) {
        return new ConclaveException(ErrorKind.UNAVAILABLE, "stream_reset", "the stream was reset");
      }
      t = t.getCause();
    }
    return new Internal(reference(), "internal", "internal error");
  }

  /** True when the failure is ours to log with its stack: the caller only saw "internal error". */
  public static boolean unexpected(ConclaveException classified) {
    return classified.kind() == ErrorKind.INTERNAL;
  }

  /**
   * Classifies {@code failure} for the caller and logs it the one way it should be: a server fault
   * as ERROR with its stack and the reference the caller was given, bad input as one rate-limited
   * WARN line ({@link BadInputLog}), anything else (not found, denied, conflicts) not at all.
   *
   * @param where what failed, for the log: {@code "grpc coven.ClientService/SendMessage"}, {@code "http POST /api/…"}
   */
  public static ConclaveException report(Logger log, String where, Throwable failure) {
    ConclaveException e = classify(failure);
    if (e instanceof Internal internal) {
      log.error("{} failed ref={}", where, internal.reference, failure);
    } else if (BAD_INPUT.contains(e.kind())) {
      BadInputLog.refused(where, e);
    }
    return e;
  }

  private static final java.util.Set<ErrorKind> BAD_INPUT = java.util.EnumSet.of(ErrorKind.INVALID_ARGUMENT, ErrorKind.PAYLOAD_TOO_LARGE,
    ErrorKind.UNSUPPORTED_MEDIA);

  /** Java class names as exception messages carry them ({@code java.util.LinkedHashMap}, {@code com.fasterxml…Exception}). */
  private static final java.util.regex.Pattern CLASS_NAME = java.util.regex.Pattern.compile(
    "\\b(?:java|javax|jakarta|jdk|sun|com|org|io|dev|net|tools|kotlin|scala)(?:\\.[a-z_$][\\w$]*)*\\.[A-Z][\\w$]*(?:\\.[A-Z][\\w$]*)*");

  /** A detail safe to send: no Java class names (a library's message may hold one). */
  public static String safeDetail(String detail) {
    return CLASS_NAME.matcher(detail).replaceAll("value");
  }

  private static String reference() {
    return java.util.UUID.randomUUID().toString().substring(0, 8);
  }

  /** A server fault: the caller gets a reference to quote, the log has the same reference with the stack. */
  static final class Internal extends ConclaveException {
    private final String reference;

    Internal(String reference, String code, String detail) {
      super(ErrorKind.INTERNAL, code, detail + " (reference " + reference + ")");
      this.reference = reference;
    }
  }
}
