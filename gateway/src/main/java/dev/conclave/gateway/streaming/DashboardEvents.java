package dev.conclave.gateway.streaming;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import dev.conclave.proto.coven.ClientStreamEvent;
import io.vertx.core.json.JsonObject;

/** Conversation events as dashboards see them: {@code {"seq", "event"}}, the event in protobuf's JSON form. */
public final class DashboardEvents {

  private static final JsonFormat.Printer PRINTER = JsonFormat.printer().omittingInsignificantWhitespace();

  private DashboardEvents() {
  }

  public static JsonObject json(long seq, ClientStreamEvent event) {
    return new JsonObject().put("seq", seq).put("event", message(event));
  }

  /** Any wire message in protobuf's JSON form (camelCase names), as the console reads them. */
  public static JsonObject message(MessageOrBuilder message) {
    try {
      return new JsonObject(PRINTER.print(message));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a message that JSON cannot show", e);
    }
  }
}
