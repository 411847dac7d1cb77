package dev.conclave.gateway.routing;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.platform.errors.ConclaveException;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;

/**
 * Carries a command's failure across the event bus: the failure code is the HTTP status of the
 * error kind, the message is {@code code|detail}. Both ends use this class, so nothing is lost.
 */
public final class CommandFailures {

  private CommandFailures() {
  }

  public static void reply(Message<?> message, ConclaveException e) {
    message.fail(e.kind().httpStatus(), e.code() + "|" + e.detail());
  }

  static ConclaveException fromReply(ReplyException re, String agentId) {
    String text = re.getMessage() == null ? "" : re.getMessage();
    int bar = text.indexOf('|');
    if (bar < 0) {
      return GatewayErrors.ownerUnreachable(agentId);
    }
    String code = text.substring(0, bar);
    String detail = text.substring(bar + 1);
    return switch (code) {
      case "agent_not_connected" -> GatewayErrors.agentNotConnected(agentId);
      case "agent_busy" -> GatewayErrors.agentNotReading(agentId);
      default -> new ConclaveException(kindFor(re.failureCode()), code, detail);
    };
  }

  private static dev.conclave.platform.errors.ErrorKind kindFor(int httpStatus) {
    for (dev.conclave.platform.errors.ErrorKind k : dev.conclave.platform.errors.ErrorKind.values()) {
      if (k.httpStatus() == httpStatus) {
        return k;
      }
    }
    return dev.conclave.platform.errors.ErrorKind.INTERNAL;
  }
}
