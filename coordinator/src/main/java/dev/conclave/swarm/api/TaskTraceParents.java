package dev.conclave.swarm.api;

import dev.conclave.platform.tracing.TraceContexts;
import io.vertx.ext.web.RoutingContext;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The trace a new task belongs to (issue 44), stored with it: the {@code traceparent} of the node's
 * span for the creating request, whose parent is the creator's own {@code traceparent} (a new root
 * when it sent none). With tracing off on this node there is no such span: the creator's header is
 * kept as it came, when it is a well-formed W3C traceparent, so that a node with tracing on, or the
 * agent that claims the task, can still continue the creator's trace.
 */
final class TaskTraceParents {

  /** version 00, a trace id and a span id that are not all zeros, flags (W3C Trace Context, level 1). */
  private static final Pattern TRACEPARENT = Pattern.compile("00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}");

  private TaskTraceParents() {
  }

  static Optional<String> ofCreation(RoutingContext ctx) {
    Optional<String> current = TraceContexts.current();
    if (current.isPresent()) {
      return current;
    }
    String header = ctx.request().getHeader("traceparent");
    return header != null && TRACEPARENT.matcher(header.trim()).matches() ? Optional.of(header.trim()) : Optional.empty();
  }
}
