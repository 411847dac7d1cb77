package dev.conclave.node;

import dev.conclave.gateway.retention.ConversationRestore;
import dev.conclave.platform.audit.AuditEvent;
import dev.conclave.platform.audit.AuditLog;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.db.PgPools;
import dev.conclave.settings.ConfigException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Brings a conversation back from the retention archive ({@code CONCLAVE_RETENTION_ARCHIVE_DIR}) into
 * the database of a running node (its embedded PostgreSQL, or {@code CONCLAVE_PG_URL}): every archived
 * event and request of the conversation, with its own ids and seqs. Rows already there are left as
 * they are, so running it twice restores nothing the second time. Audited as {@code cli conversation restore}.
 */
@Command(name = "restore", mixinStandardHelpOptions = true,
  description = "Restore a conversation that retention deleted, from its archive directory (idempotent).")
final class RestoreCommand implements Callable<Integer> {

  @Option(names = "--archive-dir", required = true, description = "The directory retention archived to (CONCLAVE_RETENTION_ARCHIVE_DIR).")
  Path archiveDir;

  @Option(names = "--conversation", required = true, description = "The conversation key, such as 'slack:C123'.")
  String conversation;

  @Option(names = "--data-dir", description = "Data dir of the node whose embedded PostgreSQL to restore into (default: $CONCLAVE_DATA_DIR or"
    + " ./data); ignored with CONCLAVE_PG_URL.")
  Path dataDir;

  @Override
  public Integer call() throws Exception {
    return run(System.getenv());
  }

  /** The command with {@code environment} for the process's environment variables. */
  int run(Map<String, String> environment) throws Exception {
    Map<String, String> env = new HashMap<>(environment);
    CliLogs.quiet(env);
    if (dataDir != null) {
      env.put(NodeSettings.DATA_DIR.name(), dataDir.toString());
    }
    ConclaveConfig config;
    try {
      config = ConclaveConfig.from(env);
    } catch (ConfigException e) {
      System.err.println("configuration error: " + e.getMessage());
      return 2;
    }
    Optional<PgUrl> url = config.pgUrl().or(() -> EmbeddedPostgresServer.runningUrl(config.embeddedPgDir()));
    if (url.isEmpty()) {
      System.err.println("restore: no database: start the node on " + config.dataDir() + " first (./conclave up), or set CONCLAVE_PG_URL");
      return 2;
    }
    ConversationRestore.Archived archived;
    try {
      archived = ConversationRestore.read(archiveDir, conversation);
    } catch (java.io.IOException e) {
      System.err.println("restore: cannot read the archive: " + e.getMessage());
      return 2;
    }
    if (archived.events().isEmpty() && archived.requests().isEmpty()) {
      System.err.println("restore: " + archiveDir + " holds nothing of conversation " + conversation);
      return 1;
    }
    Vertx vertx = Vertx.vertx();
    try {
      Pool pool = PgPools.create(vertx, url.get(), 2, 16);
      ConversationRestore.Result result = await(archived.restore(pool));
      AuditLog audit = new AuditLog(pool, "cli", new SimpleMeterRegistry());
      audit.record(AuditEvent.local("cli", "cli conversation restore", "conversation=" + conversation,
        "events=" + result.restoredEvents() + " requests=" + result.restoredRequests()));
      await(audit.flush());
      System.out.println(new JsonObject().put("conversation", conversation)
        .put("eventsArchived", result.archivedEvents()).put("eventsRestored", result.restoredEvents())
        .put("requestsArchived", result.archivedRequests()).put("requestsRestored", result.restoredRequests())
        .put("detailsRestored", result.restoredDetails()).encode());
      return 0;
    } finally {
      await(vertx.close());
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(5, TimeUnit.MINUTES);
  }
}
