package dev.conclave.platform.audit;

import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Failed authentications, counted and sampled into the audit log: anyone who reaches a port can fail
 * to authenticate as often as they like, so each failure is counted (a metric) but not written as a
 * row of its own.
 *
 * <p>Failures are grouped by source address (without the port) and reason (the refusal's code) over
 * a window ({@code CONCLAVE_AUTH_FAILURE_WINDOW_SECONDS}). The first of a group in a window is
 * audited as it happens, with its target; when the window ends, the group's others, if any, are
 * audited as one entry with their count (and the target of the first of them). At most
 * {@code CONCLAVE_AUTH_FAILURE_SOURCES} groups are told apart per window; failures of further
 * sources are grouped by reason alone, under source {@code *}. So a node writes at most
 * 2 x (sources + reasons) entries per window, however many failures there are, and the counts add
 * up to every failure.
 */
public final class FailedLogins {

  /** The settings, read once by the node. */
  public record Limits(Duration window, int sources) {
  }

  /** The defaults (the settings'), until the node starts the log with its own. */
  static final Limits DEFAULTS = new Limits(Duration.ofSeconds(60), 100);

  /** Source given to the failures of sources beyond the limit. */
  static final String OTHER_SOURCES = "*";
  static final String ACTION = "auth.failed";

  private record Group(String source, String code) {
  }

  /** The failures of one group after its first in this window. */
  private static final class More {
    String target;
    int count;
  }

  private final AuditLog audit;
  private final MeterRegistry metrics;
  private volatile Limits limits = DEFAULTS;
  /** The window's groups; a group maps to null until a second failure of it comes. */
  private Map<Group, More> window = new HashMap<>();

  FailedLogins(AuditLog audit, MeterRegistry metrics) {
    this.audit = audit;
    this.metrics = metrics;
  }

  void limits(Limits limits) {
    this.limits = limits;
  }

  Limits limits() {
    return limits;
  }

  /** One failed authentication of {@code target} (a path) from {@code remote} ({@code host:port}), refused with {@code code}. */
  void failed(String target, String code, String remote) {
    metrics.counter(MetricNames.AUTH_FAILURES, "code", code).increment();
    String source = host(remote);
    boolean first;
    synchronized (this) {
      Group group = new Group(source, code);
      if (!window.containsKey(group) && window.size() >= limits.sources()) {
        group = new Group(OTHER_SOURCES, code);
        source = OTHER_SOURCES;
      }
      first = !window.containsKey(group);
      if (first) {
        window.put(group, null);
      } else {
        More more = window.get(group);
        if (more == null) {
          more = new More();
          more.target = target;
          window.put(group, more);
        }
        more.count++;
      }
    }
    if (first) {
      audit.record(AuditEvent.anonymous(ACTION, target, code, source, 1));
    }
  }

  /** Ends the window: the groups' further failures are audited with their counts, and a new window starts. */
  void endWindow() {
    Map<Group, More> ended;
    synchronized (this) {
      ended = window;
      window = new HashMap<>();
    }
    ended.forEach((group, more) -> {
      if (more != null) {
        audit.record(AuditEvent.anonymous(ACTION, more.target, group.code(), group.source(), more.count));
      }
    });
  }

  /** {@code host:port} without the port ({@code [v6]:port} and {@code v6:port} alike); what has none, as it is. */
  static String host(String remote) {
    if (remote == null || remote.isEmpty()) {
      return "";
    }
    int colon = remote.lastIndexOf(':');
    if (colon <= 0 || colon == remote.length() - 1 || !remote.substring(colon + 1).chars().allMatch(Character::isDigit)) {
      return remote;
    }
    String host = remote.substring(0, colon);
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }
}
