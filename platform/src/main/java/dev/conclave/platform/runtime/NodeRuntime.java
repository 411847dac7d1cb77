package dev.conclave.platform.runtime;

import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.audit.AuditLog;
import dev.conclave.platform.audit.FailedLogins;
import dev.conclave.platform.auth.AdminBootstrap;
import dev.conclave.platform.auth.AdminTokenFile;
import dev.conclave.platform.auth.IssuedTokens;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.auth.PrincipalDirectory;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.RevocationFeed;
import dev.conclave.platform.auth.RevocationList;
import dev.conclave.platform.auth.SessionTokens;
import dev.conclave.platform.auth.SigningKeys;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.auth.TokenStore;
import dev.conclave.platform.auth.ssh.SshAgentCredentials;
import dev.conclave.platform.auth.ssh.UnknownKeyPolicy;
import dev.conclave.platform.cluster.ClusterMembership;
import dev.conclave.platform.cluster.DatabaseClaim;
import dev.conclave.platform.cluster.VertxBootstrap;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.NodeDatabase;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.health.NodeHealth;
import dev.conclave.platform.health.Readiness;
import dev.conclave.platform.logging.NodeLogContext;
import dev.conclave.platform.tracing.NodeTracing;
import dev.conclave.platform.metrics.NodeMetrics;
import dev.conclave.platform.packs.EventBusPackTools;
import dev.conclave.platform.secrets.Secrets;
import dev.conclave.platform.secrets.SecretsKey;
import dev.conclave.platform.server.EdgeContribution;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.platform.admission.ConnectionGuard;
import dev.conclave.platform.server.EdgeVerticle;
import dev.conclave.platform.tls.CertificateWatch;
import dev.conclave.platform.tls.ClusterTls;
import dev.conclave.platform.tls.EdgeTls;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * Boots and stops one node: the database (on a thread of its own, while Vert.x starts), migrations,
 * the shared pool, auth, the roles and the network edge, printing a progress line for each step. Blocking by design: it runs
 * in {@code main}, the CLI and tests, never on an event loop.
 */
public final class NodeRuntime {

  private static final Logger LOG = LoggerFactory.getLogger(NodeRuntime.class);
  private static final long STEP_TIMEOUT_SECONDS = 60;
  private static final Duration KEY_FILE_CHECK = Duration.ofSeconds(5);
  /**
   * How long a gateway node waits for another node to let go of its database (a restart or a
   * rolling update overlaps them briefly; a vanished host's connection takes about 30 s to end).
   */
  private static final Duration DATABASE_CLAIM_PATIENCE = Duration.ofSeconds(45);

  private final ConclaveConfig config;
  private final NodeDatabase database;
  private final DataDirOwner owner;
  private final Vertx vertx;
  private final Pool pool;
  private final NodeContext context;
  private final List<RunningRole> roles;
  private final String edgeDeployment;
  private final int grpcPort;
  private final int httpPort;
  private final AtomicBoolean stopped = new AtomicBoolean();
  /** This node's claim on its database, when a role needs one ({@link RoleModule#oneClusterPerDatabase}). */
  private final Optional<DatabaseClaim> claim;

  private NodeRuntime(ConclaveConfig config, DataDirOwner owner, NodeDatabase database, Vertx vertx, Pool pool, NodeContext context,
                      List<RunningRole> roles, String edgeDeployment, int grpcPort, int httpPort, Optional<DatabaseClaim> claim) {
    this.config = config;
    this.claim = claim;
    this.database = database;
    this.owner = owner;
    this.vertx = vertx;
    this.pool = pool;
    this.context = context;
    this.roles = roles;
    this.edgeDeployment = edgeDeployment;
    this.grpcPort = grpcPort;
    this.httpPort = httpPort;
  }

  /** Starts a node running {@code modules} (already filtered to the configured roles). */
  public static NodeRuntime start(ConclaveConfig config, List<RoleModule> modules) {
    StartPhases phases = StartPhases.begin();
    NodeLogContext.nodeId(config.nodeId());
    LOG.info("starting node={} roles={} data={}", config.nodeId(),
      config.roles().stream().map(Object::toString).collect(Collectors.joining(",")), config.dataDir());
    // the certificates first: a node configured for TLS without them stops before it touches anything
    Optional<EdgeTls> tls = EdgeTls.resolve(config);
    Optional<ClusterTls> clusterTls = config.clustered() ? ClusterTls.resolve(config) : Optional.empty();
    Optional<AdminTokenFile> adminTokenFile = AdminTokenFile.resolve(config);
    DataDirOwner owner = holdDataDir(config);
    // PostgreSQL starts (another process's work, mostly) while this thread creates Vert.x and joins the cluster
    List<SchemaMigration> schemas = new ArrayList<>();
    schemas.add(new SchemaMigration("auth"));
    modules.forEach(m -> schemas.addAll(m.migrations()));
    DatabaseStart databaseStart = DatabaseStart.begin(config, schemas);
    SecretsKey.Resolved secretsKey;
    try {
      secretsKey = SecretsKey.resolve(config);
      phases.mark("setup");
    } catch (RuntimeException e) {
      databaseStart.abandon();
      owner.close();
      throw e;
    }
    Vertx vertx = null;
    NodeTracing tracing = null;
    DatabaseClaim claim = null;
    NodeDatabase database = null;
    try {
      NodeMetrics metrics = new NodeMetrics();
      tracing = NodeTracing.fromEnvironment(config.nodeId());
      vertx = await(VertxBootstrap.create(config, metrics, clusterTls, tracing), "start Vert.x");
      tracing.register(vertx);
      phases.mark("cluster");
      // "postgres" is what is left of PostgreSQL's start once Vert.x is up
      database = databaseStart.await();
      phases.mark("postgres");

      Pool pool = PgPools.create(vertx, database.url(), config.pgPoolSize(), config.pgPoolWaitQueue());
      // the migration history is read over the pool's first connection, not over JDBC (issue 45): one
      // driver and one password exchange, not two; the database claim opens its own connection meanwhile.
      // Flyway (over JDBC) runs only on a schema whose history is not exactly this build's scripts.
      Future<Migrations.Pending> checking = Migrations.pending(pool, databaseStart.awaitScripts());
      Future<DatabaseClaim> claiming = modules.stream().anyMatch(RoleModule::oneClusterPerDatabase)
        ? DatabaseClaim.take(vertx, database.url(), !vertx.isClustered(), config.nodeId(), DATABASE_CLAIM_PATIENCE)
        : null;
      Migrations.apply(database.url(), await(checking, "read the migration history"));
      phases.mark("migrations");

      // the auth phase's reads run side by side (issue 45): the secrets key's check, the access feed and
      // the revocation feed (in startAuth) each wait on the database, none on another
      Future<Secrets> checkingSecrets = Secrets.start(pool, secretsKey);
      AgentAccess access = new AgentAccess(pool);
      LiveAccess liveAccess = new LiveAccess(vertx, access, metrics.registry());
      Future<Void> listening = liveAccess.start();
      Readiness readiness = new Readiness();
      Vertx v = vertx;
      io.vertx.pgclient.PgConnectOptions direct = PgPools.connectOptions(vertx, database.url());
      NodeHealth health = new NodeHealth(vertx, pool, () -> io.vertx.pgclient.PgConnection.connect(v, direct).map(c -> c), readiness);
      if (vertx.isClustered()) {
        health.registerProcedure("cluster", io.vertx.spi.cluster.hazelcast.ClusterHealthCheck.createProcedure(vertx));
      }
      Clock clock = Clock.systemUTC();
      ClusterMembership membership = ClusterMembership.of(vertx);
      dev.conclave.platform.health.HealthMetrics.register(vertx, health, membership, metrics.registry());
      TokenService tokens = startAuth(vertx, config, pool, clock, membership);
      Secrets secrets = await(checkingSecrets, "check the secrets key");
      PrincipalStore principals = new PrincipalStore(pool);
      if (adminTokenFile.isPresent()) {
        AdminBootstrap.FromFile done = await(AdminBootstrap.ensureTokenFromFile(adminTokenFile.get(), pool, principals, tokens, clock),
          "register the admin token from " + adminTokenFile.get().file());
        LOG.info("auth: admin token from file={} {} replaced-and-revoked={}", adminTokenFile.get().file(),
          done.registered() ? "registered" : "already registered", done.revoked().size());
      } else if (!config.get(NodeSettings.WRITE_ADMIN_TOKEN)) {
        await(AdminBootstrap.ensureAdminPrincipal(principals), "create the admin principal");
        LOG.info("auth: no admin token file ({}=off); issue the admin's token once with: conclave-node token --admin",
          NodeSettings.WRITE_ADMIN_TOKEN.name());
      } else if (await(AdminBootstrap.ensureAdminToken(config.adminTokenFile(), principals, tokens), "write the admin token")) {
        LOG.info("auth: admin token written file={}", config.adminTokenFile());
      }
      if (claiming != null) {
        DatabaseClaim held = await(claiming, "take the database for this node");
        health.register("database-claim", () -> Future.succeededFuture(held.held()));
        claim = held;
      }
      AuditLog audit = new AuditLog(pool, config.nodeId(), metrics.registry());
      audit.start(vertx, config.get(NodeSettings.AUDIT_RETENTION), new FailedLogins.Limits(config.get(NodeSettings.AUTH_FAILURE_WINDOW),
        config.get(NodeSettings.AUTH_FAILURE_SOURCES)));
      new dev.conclave.platform.retention.RetentionWorker(vertx, pool, "auth",
        List.of(dev.conclave.platform.retention.TokenRetention.rule(config.get(NodeSettings.TOKEN_RETENTION))),
        dev.conclave.platform.retention.RetentionSettings.from(config), metrics.registry()).start();
      await(listening, "listen for access changes");
      NodeContext context = new NodeContext(vertx, config, pool, tokens, principals, metrics.registry(), health, clock,
        membership, new EventBusPackTools(vertx, membership, config.nodeId()),
        EdgeSecurity.create(audit, config.maxMessageBytes(), ConnectionGuard.of(vertx, config, metrics.registry()), liveAccess), access,
        secrets, tracing);

      phases.mark("auth");
      List<RunningRole> running = new ArrayList<>();
      List<EdgeContribution> contributions = new ArrayList<>();
      // coven agents sign their calls with SSH keys (x-ssh-* headers) instead of sending a token
      contributions.add(SshAgentCredentials.start(vertx, pool, principals, clock, UnknownKeyPolicy.of(config.get(NodeSettings.SSH_UNKNOWN_KEYS)),
        new SshAgentCredentials.UnknownKeyLimits(config.get(NodeSettings.SSH_PENDING_MAX), config.get(NodeSettings.SSH_NEW_KEYS_PER_HOUR))));
      for (RunningRole role : RoleStarts.startAll(modules, NodeRuntime::await, context)) {
        running.add(role);
        contributions.addAll(role.contributions());
      }
      phases.mark("roles");

      EdgeVerticle.Setup setup = new EdgeVerticle.Setup(config, tokens, principals, clock, context.edge(), health, metrics,
        List.copyOf(contributions), tls);
      List<EdgeVerticle> edges = new ArrayList<>();
      String edgeId = await(vertx.deployVerticle(() -> {
        EdgeVerticle edge = new EdgeVerticle(setup);
        synchronized (edges) {
          edges.add(edge);
        }
        return edge;
      }, new DeploymentOptions().setInstances(config.edgeInstances())), "open the gRPC and HTTP ports");
      int grpcPort = edges.get(0).grpcPort();
      int httpPort = edges.get(0).httpPort();
      LOG.info("grpc: listening on {}:{} services={}", config.bindHost(), grpcPort, String.join(",", edges.get(0).grpcServices()));
      LOG.info("http: listening on {}:{} (console /, /api, /auth/session, /eventbus, /health/live, /health/ready, /metrics)", config.bindHost(), httpPort);
      if (tls.isPresent()) {
        LOG.info("tls: the gRPC and HTTP ports speak TLS only, client-certificates={} {}",
          tls.get().clientCertificates() ? "required-on-grpc" : "none", tls.get().material().describe());
        EdgeVerticle first = edges.get(0);
        CertificateWatch.start(vertx, tls.get().files(), "gRPC and HTTP ports", CertificateWatch.EVERY, first::useTls);
      } else {
        LOG.info("tls: off, the gRPC and HTTP ports speak plaintext (set {} and {} for TLS)", NodeSettings.TLS_CERT_FILE.name(),
          NodeSettings.TLS_KEY_FILE.name());
      }

      readiness.started();
      phases.mark("listen");
      LOG.info("ready node={} grpc={}:{} http={}://{}:{} admin-token={} {}", config.nodeId(), config.advertisedHost(), grpcPort,
        config.httpScheme(), config.advertisedHost(), httpPort, adminTokenFile.map(AdminTokenFile::file).orElse(config.adminTokenFile()),
        phases.describe());
      owner.endpoints("grpc=" + config.advertisedHost() + ":" + grpcPort + " http=" + config.httpScheme() + "://" + config.advertisedHost()
        + ":" + httpPort);
      return new NodeRuntime(config, owner, database, vertx, pool, context, running, edgeId, grpcPort, httpPort, Optional.ofNullable(claim));
    } catch (RuntimeException e) {
      if (vertx != null) {
        try {
          vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception ignored) {
          // already failing; the original error is what matters
        }
      }
      if (tracing != null) {
        tracing.close();
      }
      if (database != null) {
        database.close();
      } else {
        databaseStart.abandon();
      }
      owner.close();
      throw e;
    }
  }

  /**
   * Takes the data dir for this node: a second node, or the {@code postgres} command, on the same dir
   * would share its files and take its embedded PostgreSQL for an orphan.
   */
  private static DataDirOwner holdDataDir(ConclaveConfig config) {
    DataDirOwner.Attempt attempt = DataDirOwner.acquire(config.dataDir(), "node", config.pgUrl().isEmpty());
    if (attempt instanceof DataDirOwner.Held held) {
      throw new dev.conclave.settings.ConfigException(dev.conclave.platform.config.NodeSettings.DATA_DIR.name(),
        config.dataDir() + " is in use by " + held.holder().describe() + "; stop it first, or give this node a data dir of its own");
    }
    return ((DataDirOwner.Acquired) attempt).owner();
  }

  private static TokenService startAuth(Vertx vertx, ConclaveConfig config, Pool pool, Clock clock, ClusterMembership membership) {
    TokenStore store = new TokenStore(pool);
    RevocationList revocations = new RevocationList(store);
    LiveCredentials live = new LiveCredentials(vertx);
    IssuedTokens issued = new IssuedTokens(store);
    PrincipalDirectory directory = new PrincipalDirectory(store);
    RevocationFeed feed = new RevocationFeed(vertx, pool, revocations, live, directory, issued);
    await(feed.start(), "load token revocations");
    TokenService tokens = new TokenService(vertx, SigningKeys.resolve(config), store, revocations, clock, live, feed, issued, directory,
      new SessionTokens(vertx, membership.localMember(), membership::isMember));
    if (config.authSecret().isEmpty()) {
      SigningKeys.watch(vertx, config.dataDir(), KEY_FILE_CHECK, tokens::useKeys);
    }
    tokens.use().start(vertx, pool);
    return tokens;
  }

  /**
   * Graceful stop: report not-ready, let each role hand its work over, stop accepting and finish
   * in-flight calls, undeploy, close the pool and Vert.x, then stop embedded PostgreSQL. Every step
   * is bounded by the shutdown grace.
   */
  public void stop() {
    if (!stopped.compareAndSet(false, true)) {
      return;
    }
    long t0 = System.nanoTime();
    Duration grace = config.shutdownGrace();
    LOG.info("stopping node={} grace={}s", config.nodeId(), grace.toSeconds());
    context.health().readiness().draining();
    for (RunningRole role : roles) {
      bounded(role.drain(grace), grace, "drain role");
    }
    bounded(vertx.undeploy(edgeDeployment), grace.plusSeconds(2), "close the ports");
    for (RunningRole role : roles) {
      bounded(role.stop(), grace, "stop role");
    }
    bounded(context.edge().audit().flush(), Duration.ofSeconds(5), "write the audit log");
    claim.ifPresent(c -> bounded(c.close(), Duration.ofSeconds(5), "let go of the database"));
    bounded(pool.close(), Duration.ofSeconds(5), "close the database pool");
    bounded(vertx.close(), grace, "close Vert.x");
    context.tracing().close();
    database.close();
    owner.close();
    LOG.info("stopped node={} took={}ms", config.nodeId(), (System.nanoTime() - t0) / 1_000_000);
  }

  public ConclaveConfig config() {
    return config;
  }

  public NodeContext context() {
    return context;
  }

  public Vertx vertx() {
    return vertx;
  }

  public int grpcPort() {
    return grpcPort;
  }

  public int httpPort() {
    return httpPort;
  }

  public NodeDatabase database() {
    return database;
  }

  static <T> T await(Future<T> future, String step) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(STEP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      throw new IllegalStateException("could not " + step + ": " + cause.getMessage(), cause);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("could not " + step + " within " + STEP_TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while trying to " + step, e);
    }
  }

  private static void bounded(Future<?> future, Duration limit, String step) {
    try {
      future.toCompletionStage().toCompletableFuture().get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      LOG.warn("shutdown: '{}' did not finish within {} ms; going on", step, limit.toMillis());
    } catch (Exception e) {
      LOG.warn("shutdown: '{}' failed error={}", step, e.getMessage());
    }
  }
}
