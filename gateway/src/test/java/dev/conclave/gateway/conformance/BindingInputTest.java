package dev.conclave.gateway.conformance;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.CreateBindingRequest;
import dev.conclave.proto.coven.UpdateBindingRequest;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A binding's fields are checked before anything is written: a value the table could not take, or
 * one that would make the binding unreachable, is INVALID_ARGUMENT {@code binding_invalid} naming the
 * field and its rule, never INTERNAL, and nothing about it is logged at ERROR or with a stack.
 */
class BindingInputTest {

  private static GatewayFixture gw;
  private static Clients admin;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    admin = gw.admin();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void createBindingRefusesWhatTheTableCannotHoldNamingTheField() {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    root.addAppender(lines);
    try {
      refused(create("f".repeat(101), "chan", "agent-1"), "frontend", "at most 100");
      refused(create("slack", "c".repeat(301), "agent-1"), "channel_id", "at most 300");
      refused(create("slack", "chan", "a".repeat(201)), "agent_id", "at most 200");
      // the conversation key is <frontend>:<channel_id>: a frontend with a colon could never be reached
      refused(create("sla:ck", "chan", "agent-1"), "frontend", "':'");
      refused(create("sl ack", "chan", "agent-1"), "frontend", "0020");
      refused(create("slack", "chan\u0000nel", "agent-1"), "channel_id", "0000");
      refused(create("slack", "chan\u202Enel", "agent-1"), "channel_id", "202E");
      refused(create("slack", "chan", "agent 1"), "agent_id", "0020");
      refused(create("", "chan", "agent-1"), "frontend", "required");
      refused(create("slack", " ", "agent-1"), "channel_id", "required");
      refused(create("slack", "chan", ""), "agent_id", "required");
      var made = create("slack", "!room:matrix.org", "agent-1");
      assertThat(made.status()).as(made.message()).isEqualTo(GrpcStatus.OK);
      String id = made.response().orElseThrow().getId();
      refused(admin.grpc().unary(AdminServiceGrpcClient.UpdateBinding, UpdateBindingRequest.newBuilder().setId(id)
        .setAgentId("a".repeat(201)).build(), admin.authorization()), "agent_id", "at most 200");
    } finally {
      root.detachAppender(lines);
    }
    assertThat(lines.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null)
      .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage())).isEmpty();
  }

  private static GrpcCalls.Outcome<dev.conclave.proto.coven.Binding> create(String frontend, String channel, String agent) {
    return admin.grpc().unary(AdminServiceGrpcClient.CreateBinding, CreateBindingRequest.newBuilder().setFrontend(frontend)
      .setChannelId(channel).setAgentId(agent).build(), admin.authorization());
  }

  /** ({@code rule} without a '+': Vert.x's client form-decodes the status message, so U+0020 reads as "U 0020".) */
  private static void refused(GrpcCalls.Outcome<?> outcome, String field, String rule) {
    assertThat(outcome.status()).as(outcome.message()).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(outcome.message()).startsWith("binding_invalid: " + field + " ").contains(rule)
      .doesNotContain("Exception").doesNotContain("check").doesNotContain("gateway.");
  }
}
