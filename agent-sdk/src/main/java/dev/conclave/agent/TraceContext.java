package dev.conclave.agent;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The W3C trace context of the request a message belongs to, as the gateway handed it over: its
 * {@code traceparent} names the gateway's span for the request, so whatever the agent sends on with
 * it (a model API request, a CLI it runs) joins the request's trace. {@link #NONE} when the gateway
 * does not trace, or the message came from a gateway that does not send one. A pack's tool call has
 * one too ({@code ToolInvocation.traceContext()}): its {@code traceparent} names the pack host's span
 * of the call.
 *
 * <p>Only the W3C form passes: a {@code traceparent} of another shape drops the whole context, a
 * {@code tracestate} of more than 512 characters or with characters outside printable ASCII is
 * dropped alone. Both end up in HTTP headers and environment variables.
 *
 * @param traceparent the W3C {@code traceparent}, e.g. {@code 00-<trace id>-<parent span id>-01}
 * @param tracestate the W3C {@code tracestate}, when the trace has one
 */
public record TraceContext(Optional<String> traceparent, Optional<String> tracestate) {

  /** No trace context. */
  public static final TraceContext NONE = new TraceContext(Optional.empty(), Optional.empty());

  private static final Pattern TRACEPARENT = Pattern.compile("([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}");
  private static final Pattern TRACESTATE = Pattern.compile("[\\x20-\\x7e]{1,512}");

  /** From W3C headers by name ({@code traceparent}, {@code tracestate}); {@link #NONE} without a valid traceparent. */
  public static TraceContext of(Map<String, String> headers) {
    String parent = headers.get("traceparent");
    if (parent == null) {
      return NONE;
    }
    var m = TRACEPARENT.matcher(parent);
    if (!m.matches() || m.group(1).equals("ff") || m.group(2).chars().allMatch(c -> c == '0') || m.group(3).chars().allMatch(c -> c == '0')) {
      return NONE;
    }
    String state = headers.get("tracestate");
    return new TraceContext(Optional.of(parent), Optional.ofNullable(state).filter(s -> TRACESTATE.matcher(s).matches()));
  }

  /** Whether there is a context to pass on. */
  public boolean isPresent() {
    return traceparent.isPresent();
  }

  /** The trace's id (32 hex digits). */
  public Optional<String> traceId() {
    return traceparent.map(p -> p.substring(3, 35));
  }

  /** As HTTP headers: {@code traceparent} and, when there is one, {@code tracestate}; empty for {@link #NONE}. */
  public Map<String, String> headers() {
    Map<String, String> h = new LinkedHashMap<>();
    traceparent.ifPresent(p -> h.put("traceparent", p));
    tracestate.ifPresent(s -> h.put("tracestate", s));
    return h;
  }

  /**
   * As environment variables for a child process: {@code TRACEPARENT} and {@code TRACESTATE}, the
   * OpenTelemetry convention for carrying a context into a process it starts.
   */
  public Map<String, String> environment() {
    Map<String, String> e = new LinkedHashMap<>();
    traceparent.ifPresent(p -> e.put("TRACEPARENT", p));
    tracestate.ifPresent(s -> e.put("TRACESTATE", s));
    return e;
  }
}
