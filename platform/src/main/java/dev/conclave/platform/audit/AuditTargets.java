package dev.conclave.platform.audit;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.vertx.core.http.HttpMethod;

import java.util.List;
import java.util.Set;

/**
 * Which calls the edge audits, and how a call's target is named. Every change is audited (HTTP
 * methods other than GET; gRPC methods other than reads and the high-volume pack results); reads are
 * not. A gRPC target is the request's identifying fields ({@code agent_id=…, tool_id=…}), never
 * its content, tokens or values.
 */
public final class AuditTargets {

  /** Fields that name what a request acts on; nothing else of a request goes into the log. */
  static final List<String> NAMING_FIELDS = List.of("id", "agent_id", "principal_id", "tool_id", "question_id", "conversation_key",
    "frontend", "channel_id", "pack_id", "type", "display_name", "approved");
  /** Reads, and results packs send for every tool call. */
  static final Set<String> NOT_AUDITED_PREFIXES = Set.of("Get", "List", "Stream");
  static final Set<String> NOT_AUDITED_METHODS = Set.of("coven.PackService/ToolResult");

  private AuditTargets() {
  }

  public static boolean audited(String fullMethodName) {
    if (NOT_AUDITED_METHODS.contains(fullMethodName)) {
      return false;
    }
    String method = fullMethodName.substring(fullMethodName.indexOf('/') + 1);
    return NOT_AUDITED_PREFIXES.stream().noneMatch(method::startsWith);
  }

  public static boolean audited(HttpMethod method) {
    return method != HttpMethod.GET && method != HttpMethod.HEAD && method != HttpMethod.OPTIONS;
  }

  /** {@code agent_id=a, tool_id=t}: the naming fields the message sets. */
  public static String of(Object request) {
    if (!(request instanceof Message message)) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    for (String name : NAMING_FIELDS) {
      FieldDescriptor field = message.getDescriptorForType().findFieldByName(name);
      if (field != null && !field.isRepeated() && message.hasField(field)) {
        if (out.length() > 0) {
          out.append(", ");
        }
        out.append(name).append('=').append(message.getField(field));
      }
    }
    return out.toString();
  }
}
