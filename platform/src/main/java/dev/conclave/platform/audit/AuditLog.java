package dev.conclave.platform.audit;

import dev.conclave.platform.db.BatchWriter;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Writes the audit log ({@code auth.audit}). Recording never holds the audited call up: entries are
 * written in batches ({@link BatchWriter}); an entry that cannot be kept is counted and logged. Old
 * entries are deleted after the retention. Failed authentications are counted and sampled
 * ({@link FailedLogins}), not written one by one.
 */
public final class AuditLog {

  private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);
  private static final SqlFile SQL = SqlFile.of(AuditLog.class, "audit.sql");
  static final int MAX_QUEUED = 50_000;
  static final int BATCH = 500;
  static final long FLUSH_MS = 250;
  static final long RETENTION_SWEEP_MS = 3_600_000;
  static final int MAX_TEXT = 1000;

  private final Pool pool;
  private final String node;
  private final BatchWriter<AuditEvent> writer;
  private final FailedLogins failedLogins;

  public AuditLog(Pool pool, String node, MeterRegistry metrics) {
    this.pool = pool;
    this.node = node;
    this.writer = new BatchWriter<>("audit entries", MAX_QUEUED, BATCH, this::insert, metrics.counter(MetricNames.AUDIT_ENTRIES_LOST));
    this.failedLogins = new FailedLogins(this, metrics);
  }

  /** Starts the batch writer and the retention sweep, with the default sampling of failed authentications. */
  public void start(Vertx vertx, Duration retention) {
    start(vertx, retention, FailedLogins.DEFAULTS);
  }

  /** Starts the batch writer, the retention sweep and the windows of failed authentications. */
  public void start(Vertx vertx, Duration retention, FailedLogins.Limits sampling) {
    writer.start(vertx, FLUSH_MS);
    failedLogins.limits(sampling);
    vertx.setPeriodic(sampling.window().toMillis(), t -> failedLogins.endWindow());
    vertx.setPeriodic(RETENTION_SWEEP_MS, t -> SQL.get("DeleteOlder").with("retention", retention.toDays() + " days").execute(pool)
      .onFailure(err -> LOG.warn("audit: retention sweep failed error={}", err.getMessage())));
  }

  public void record(AuditEvent event) {
    writer.add(event);
  }

  /**
   * A call refused before any caller was known (no, or bad, credentials): counted, and audited as
   * {@code auth.failed} with {@code code}, sampled per source address and code ({@link FailedLogins}).
   */
  public void authenticationFailed(String target, String code, String remote) {
    failedLogins.failed(target, code, remote);
  }

  /** Writes what is queued, the current window's failed authentications included; also before the node stops. */
  public Future<Void> flush() {
    failedLogins.endWindow();
    return writer.flush();
  }

  private Future<Void> insert(List<AuditEvent> events) {
    int n = events.size();
    UUID[] actors = new UUID[n];
    String[] types = new String[n];
    String[] actions = new String[n];
    String[] targets = new String[n];
    String[] outcomes = new String[n];
    String[] details = new String[n];
    String[] remotes = new String[n];
    Integer[] counts = new Integer[n];
    for (int i = 0; i < n; i++) {
      AuditEvent e = events.get(i);
      actors[i] = e.actorId().orElse(null);
      types[i] = e.actorType();
      actions[i] = cut(e.action());
      targets[i] = cut(e.target());
      outcomes[i] = e.outcome().wire();
      details[i] = e.detail() == null || e.detail().isEmpty() ? null : cut(e.detail());
      remotes[i] = cut(e.remote());
      counts[i] = Math.max(1, e.count());
    }
    return SQL.get("InsertBatch").with("actors", actors).with("types", types).with("actions", actions).with("targets", targets)
      .with("outcomes", outcomes).with("details", details).with("remotes", remotes).with("counts", counts).with("node", node)
      .execute(pool)
      .mapEmpty();
  }

  private static String cut(String s) {
    return s == null ? "" : s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT);
  }
}
