package dev.conclave.platform.db;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.PgUrl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node's PostgreSQL: the external one named by {@code CONCLAVE_PG_URL}, or an embedded one
 * whose cluster lives in {@code $CONCLAVE_DATA_DIR/pg} and which stops with the node.
 */
public final class NodeDatabase implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(NodeDatabase.class);

  private final PgUrl url;
  private final Optional<EmbeddedPostgresServer> embedded;

  private NodeDatabase(PgUrl url, Optional<EmbeddedPostgresServer> embedded) {
    this.url = url;
    this.embedded = embedded;
  }

  /** Blocking: may start PostgreSQL. Call from {@code main} or a test. */
  public static NodeDatabase open(ConclaveConfig config) {
    return open(config, List.of());
  }

  /**
   * As {@link #open(ConclaveConfig)}; an embedded cluster created now is a copy of the template with
   * {@code schemas} already migrated ({@link ClusterTemplate}), when one can be used.
   */
  public static NodeDatabase open(ConclaveConfig config, List<SchemaMigration> schemas) {
    if (config.pgUrl().isPresent()) {
      LOG.info("database: using external PostgreSQL url={}", config.pgUrl().get().redacted());
      return new NodeDatabase(config.pgUrl().get(), Optional.empty());
    }
    long t0 = System.nanoTime();
    LOG.info("database: starting embedded PostgreSQL dir={} (the first start unpacks PostgreSQL, a few seconds)", config.embeddedPgDir());
    Optional<ClusterTemplate> template = schemas.isEmpty() || java.nio.file.Files.exists(config.embeddedPgDir().resolve("postgresql.conf"))
      ? Optional.empty() : ClusterTemplate.forSchemas(schemas);
    EmbeddedPostgresServer server = EmbeddedPostgresServer.start(config.embeddedPgDir(), 0, Map.of(), template);
    LOG.info("database: embedded PostgreSQL ready url={} took={}ms", server.url().redacted(), (System.nanoTime() - t0) / 1_000_000);
    return new NodeDatabase(server.url(), Optional.of(server));
  }

  public PgUrl url() {
    return url;
  }

  public boolean embedded() {
    return embedded.isPresent();
  }

  @Override
  public void close() {
    embedded.ifPresent(server -> {
      server.close();
      LOG.info("database: embedded PostgreSQL stopped");
    });
  }
}
