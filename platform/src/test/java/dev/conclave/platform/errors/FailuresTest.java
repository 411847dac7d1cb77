package dev.conclave.platform.errors;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** One mapping for every failure: what the caller sees, and what the log gets. */
class FailuresTest {

  private final Logger log = (Logger) LoggerFactory.getLogger("failures-test");
  private final Logger badInput = (Logger) LoggerFactory.getLogger("dev.conclave.badinput");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

  @BeforeEach
  void capture() {
    BadInputLog.newWindow();
    lines.start();
    log.addAppender(lines);
    badInput.addAppender(lines);
  }

  @AfterEach
  void release() {
    log.detachAppender(lines);
    badInput.detachAppender(lines);
  }

  @Test
  void aServerFaultGivesTheCallerAReferenceTheLogAlsoHas() {
    ConclaveException e = Failures.report(log, "http GET /x", new IllegalStateException("boom"));
    assertThat(e.kind()).isEqualTo(ErrorKind.INTERNAL);
    assertThat(e.detail()).matches("internal error \\(reference [0-9a-f]{8}\\)");
    String reference = e.detail().replaceAll(".*reference ([0-9a-f]{8}).*", "$1");
    assertThat(lines.list).singleElement().satisfies(line -> {
      assertThat(line.getLevel()).isEqualTo(Level.ERROR);
      assertThat(line.getFormattedMessage()).contains("ref=" + reference);
      assertThat(line.getThrowableProxy()).isNotNull();
    });
  }

  @Test
  void noPoolConnectionInTimeIsUnavailableNotAServerFault() {
    // what vertx-sql-client's pool fails a waiter with (a VertxException without a stack)
    ConclaveException e = Failures.report(log, "grpc x/Y", new io.vertx.core.VertxException(Failures.POOL_WAIT_TIMEOUT, true));
    assertThat(e.kind()).isEqualTo(ErrorKind.UNAVAILABLE);
    assertThat(e.code()).isEqualTo("db_unavailable");
  }

  @Test
  void aClientThatClosedItsConnectionIsNotAServerFaultAndNotLogged() {
    ConclaveException e = Failures.report(log, "http POST /api/v1/x", new io.vertx.core.http.HttpClosedException("Connection was closed"));
    assertThat(e.kind()).isNotEqualTo(ErrorKind.INTERNAL);
    assertThat(e.code()).isEqualTo("client_closed");
    assertThat(lines.list).isEmpty();
  }

  @Test
  void badInputIsOneWarnLineWithoutAStack() {
    Failures.report(log, "grpc x/Y", ConclaveException.invalid("malformed_message", "no good"));
    assertThat(lines.list).singleElement().satisfies(line -> {
      assertThat(line.getLevel()).isEqualTo(Level.WARN);
      assertThat(line.getThrowableProxy()).isNull();
      assertThat(line.getFormattedMessage()).contains("where=grpc x/Y", "code=malformed_message");
    });
  }

  @Test
  void badInputLinesAreRateLimited() {
    for (int i = 0; i < 1000; i++) {
      Failures.report(log, "grpc x/Y", ConclaveException.invalid("malformed_message", "no good " + i));
    }
    assertThat(lines.list.size()).isBetween(1, 2 * BadInputLog.LINES_PER_SECOND);
  }

  @Test
  void refusalsOfOtherKindsAreNotLogged() {
    Failures.report(log, "grpc x/Y", ConclaveException.notFound("agent_not_found", "no such agent"));
    Failures.report(log, "grpc x/Y", ConclaveException.denied("not yours"));
    assertThat(lines.list).isEmpty();
  }

  @Test
  void detailsNeverCarryJavaClassNames() {
    assertThat(Failures.safeDetail("Cannot deserialize value of type `java.util.LinkedHashMap` from Array"))
      .isEqualTo("Cannot deserialize value of type `value` from Array");
    assertThat(Failures.safeDetail("com.fasterxml.jackson.core.JsonParseException: Unexpected character"))
      .doesNotContain("com.fasterxml").doesNotContain("JsonParseException");
    assertThat(Failures.safeDetail("params are not valid: tools.jackson.databind.exc.MismatchedInputException: Cannot deserialize"))
      .isEqualTo("params are not valid: value: Cannot deserialize");
    assertThat(Failures.safeDetail("no route for coven.ClientService/SendMessage or grpc.health.v1.Health"))
      .isEqualTo("no route for coven.ClientService/SendMessage or grpc.health.v1.Health");
  }
}
