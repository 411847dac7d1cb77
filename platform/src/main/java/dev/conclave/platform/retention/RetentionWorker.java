package dev.conclave.platform.retention;

import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Deletes what a module keeps only for a while ({@link RetentionRule}s), every interval, on one node at
 * a time: a run takes the worker's advisory lock on one connection (a node that cannot take it skips
 * the run, counted) and runs each rule in batches of at most the batch size, each batch one short
 * transaction, so no lock is held for long. With an archive, a batch's rows are written to it and
 * forced to disk before the batch commits; if that fails the batch rolls back, nothing is deleted,
 * the rule stops for this run, and the failure is logged and counted. Each rule's run ends in one
 * log line per kind of row ({@code retention: worker=… kind=… deleted=… batches=… took=…ms}).
 */
public final class RetentionWorker {

  private static final Logger LOG = LoggerFactory.getLogger(RetentionWorker.class);
  private static final SqlFile SQL = SqlFile.of(RetentionWorker.class, "retention.sql");

  /** What one run did: rows deleted per kind, batches per rule; {@code skipped} when another node held the lock. */
  public record Run(boolean skipped, Map<String, Long> deleted, Map<String, Integer> batches) {
    public long deleted(String kind) {
      return deleted.getOrDefault(kind, 0L);
    }

    public int batches(String kind) {
      return batches.getOrDefault(kind, 0);
    }
  }

  private final Vertx vertx;
  private final Pool pool;
  private final String worker;
  private final List<RetentionRule> rules;
  private final RetentionSettings settings;
  private final Optional<RetentionArchive> archive;
  private final MeterRegistry metrics;
  private long timer = -1;
  private boolean running;

  public RetentionWorker(Vertx vertx, Pool pool, String worker, List<RetentionRule> rules, RetentionSettings settings,
                         MeterRegistry metrics) {
    this.vertx = vertx;
    this.pool = pool;
    this.worker = worker;
    this.rules = List.copyOf(rules);
    this.settings = settings;
    this.archive = settings.archiveDir().map(dir -> new RetentionArchive(dir, java.time.Clock.systemUTC()));
    this.metrics = metrics;
  }

  public void start() {
    timer = vertx.setPeriodic(settings.interval().toMillis(), t -> {
      if (!running) {
        running = true;
        runOnce().onComplete(ar -> {
          running = false;
          if (ar.failed()) {
            LOG.warn("retention: worker={} run failed error={}", worker, ar.cause().getMessage());
          }
        });
      }
    });
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /** One run of every rule, unless another worker of the same name holds the lock. */
  public Future<Run> runOnce() {
    return pool.getConnection().compose(conn -> SQL.get("TryLock").with("worker", worker).execute(conn)
      .compose(rows -> {
        if (!rows.iterator().next().getBoolean("locked")) {
          metrics.counter(MetricNames.RETENTION_RUNS_SKIPPED, "worker", worker).increment();
          LOG.debug("retention: worker={} skipped, another node is running it", worker);
          return Future.succeededFuture(new Run(true, Map.of(), Map.of()));
        }
        Run run = new Run(false, new LinkedHashMap<>(), new LinkedHashMap<>());
        return rules(conn, 0, run)
          .eventually(() -> SQL.get("Unlock").with("worker", worker).execute(conn))
          .map(run);
      })
      .eventually(conn::close));
  }

  private Future<Void> rules(SqlConnection conn, int i, Run run) {
    if (i == rules.size()) {
      return Future.succeededFuture();
    }
    RetentionRule rule = rules.get(i);
    Map<String, Long> deleted = new LinkedHashMap<>();
    deleted.put(rule.kind(), 0L);
    long start = System.nanoTime();
    return batches(conn, rule, deleted, run, 0)
      .transform(ar -> {
        long ms = (System.nanoTime() - start) / 1_000_000;
        int batches = run.batches(rule.kind());
        deleted.forEach((kind, n) -> {
          run.deleted().merge(kind, n, Long::sum);
          LOG.info("retention: worker={} kind={} deleted={} batches={} took={}ms{}", worker, kind, n, batches, ms,
            ar.failed() ? " stopped=" + ar.cause().getMessage() : "");
        });
        return rules(conn, i + 1, run);
      });
  }

  private Future<Void> batches(SqlConnection conn, RetentionRule rule, Map<String, Long> deleted, Run run, int done) {
    int limit = settings.batchSize();
    return batch(conn, rule, limit).compose(lines -> {
      run.batches().merge(rule.kind(), 1, Integer::sum);
      metrics.counter(MetricNames.RETENTION_BATCHES, "kind", rule.kind()).increment();
      lines.forEach((kind, list) -> {
        deleted.merge(kind, (long) list.size(), Long::sum);
        metrics.counter(MetricNames.RETENTION_ROWS_DELETED, "kind", kind).increment(list.size());
      });
      return lines.getOrDefault(rule.kind(), List.of()).size() < limit ? Future.succeededFuture()
        : batches(conn, rule, deleted, run, done + 1);
    });
  }

  /** One transaction: delete a batch, archive it (forced to disk), commit; rolled back if the archive fails. */
  private Future<Map<String, List<String>>> batch(SqlConnection conn, RetentionRule rule, int limit) {
    return conn.begin().compose(tx -> rule.batch().apply(limit).execute(conn)
      .map(rows -> {
        Map<String, List<String>> lines = new LinkedHashMap<>();
        for (Row row : rows) {
          lines.computeIfAbsent(row.getString("kind"), k -> new ArrayList<>()).add(row.getString("line"));
        }
        return lines;
      })
      .compose(lines -> archive(rule, lines).map(lines))
      .compose(lines -> tx.commit().map(lines))
      .recover(err -> tx.rollback().transform(ignored -> Future.failedFuture(err))));
  }

  private Future<Void> archive(RetentionRule rule, Map<String, List<String>> lines) {
    if (archive.isEmpty() || lines.isEmpty()) {
      return Future.succeededFuture();
    }
    RetentionArchive to = archive.get();
    return vertx.<Void>executeBlocking(() -> {
      for (Map.Entry<String, List<String>> kind : lines.entrySet()) {
        to.append(kind.getKey(), kind.getValue());
      }
      return null;
    }, false).onFailure(err -> {
      metrics.counter(MetricNames.RETENTION_ARCHIVE_FAILURES, "kind", rule.kind()).increment();
      LOG.warn("retention: worker={} kind={} archive write to {} failed, nothing deleted error={}", worker, rule.kind(), to.dir(), err.toString());
    });
  }
}
