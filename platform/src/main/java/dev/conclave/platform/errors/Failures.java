package dev.conclave.platform.errors;

import io.vertx.core.http.StreamResetException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;

import java.net.ConnectException;
import java.util.concurrent.TimeoutException;

/**
 * Turns any throwable into a {@link ConclaveException} a caller may see. Failures we did not
 * anticipate become {@code internal} with a generic detail, and the cause is for the log.
 */
public final class Failures {

  private Failures() {
  }

  public static ConclaveException classify(Throwable failure) {
    Throwable t = failure;
    while (t != null) {
      if (t instanceof ConclaveException ce) {
        return ce;
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
      if (t instanceof PgException pg && pg.getSqlState() != null && pg.getSqlState().startsWith("22")) {
        // class 22 is PostgreSQL's "data exception": a value from the request it cannot take (a NUL
        // character in text, a number out of range); the caller's input, not our fault
        return new ConclaveException(ErrorKind.INVALID_ARGUMENT, "value_invalid",
          "a value in the request cannot be stored: " + pg.getErrorMessage());
      }
      if (t instanceof io.vertx.core.http.ConnectionPoolTooBusyException) {
        return new ConclaveException(ErrorKind.UNAVAILABLE, "overloaded", "the node is overloaded (database pool queue full); retry shortly");
      }
      if (t instanceof io.vertx.core.impl.NoStackTraceTimeoutException || t instanceof TimeoutException
        || (t instanceof io.vertx.core.eventbus.ReplyException re && re.failureType() == io.vertx.core.eventbus.ReplyFailure.TIMEOUT)) {
        return new ConclaveException(ErrorKind.UNAVAILABLE, "timeout", "an internal call timed out; retry");
      }
      if (t instanceof StreamResetException) {
        return new ConclaveException(ErrorKind.UNAVAILABLE, "stream_reset", "the stream was reset");
      }
      t = t.getCause();
    }
    return new ConclaveException(ErrorKind.INTERNAL, "internal", "internal error");
  }

  /** True when the failure is ours to log with its stack: the caller only saw "internal error". */
  public static boolean unexpected(ConclaveException classified) {
    return classified.kind() == ErrorKind.INTERNAL;
  }
}
