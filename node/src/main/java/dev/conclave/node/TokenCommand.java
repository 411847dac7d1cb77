package dev.conclave.node;

import dev.conclave.platform.audit.AuditEvent;
import dev.conclave.platform.audit.AuditLog;
import dev.conclave.platform.auth.AdminBootstrap;
import dev.conclave.platform.auth.CapabilityGrants;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.RevocationList;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.auth.SigningKeys;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.auth.TokenStore;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.db.EmbeddedPostgresServer;
import dev.conclave.platform.runtime.DataDirOwner;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.settings.ConfigException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issues a token with the data dir's signing secret and prints it on stdout. Reaches the database
 * the node uses: {@code CONCLAVE_PG_URL}, else the embedded PostgreSQL of the data dir (the running
 * one, or started just for this command).
 */
@Command(name = "token", mixinStandardHelpOptions = true,
  description = "Issue a token for a principal using the data dir's secret; prints the token on stdout.")
final class TokenCommand implements Callable<Integer> {

  private static final Pattern TTL = Pattern.compile("(\\d+)([smhd])");

  @ArgGroup(exclusive = true, multiplicity = "1")
  Target target;

  static final class Target {
    @Option(names = "--principal", description = "Id of an existing principal.")
    UUID principal;

    @Option(names = "--admin", description = "The bootstrap admin principal.")
    boolean admin;

    @Option(names = "--new-agent", paramLabel = "NAME", description = "Create an approved agent principal named NAME first.")
    String newAgent;

    @Option(names = "--new-client", paramLabel = "NAME", description = "Create an approved client principal (role member) named NAME first.")
    String newClient;

    @Option(names = "--new-pack", paramLabel = "NAME", description = "Create an approved pack principal named NAME first (for PackService).")
    String newPack;

    @Option(names = "--rotate-key", description = "Add a new signing key that signs from now on; tokens of older keys stay valid. Prints the key id.")
    boolean rotateKey;

    @Option(names = "--retire-key", paramLabel = "KID", description = "Remove an older signing key: tokens it signed stop working at once.")
    String retireKey;
  }

  @Option(names = "--owner", paramLabel = "PRINCIPAL", description = "With --new-agent: the member who owns the agent; its members"
    + " reach, and the agent's admin tools act with it. Default: no owner (admins and the members it is granted to use the agent,"
    + " and its admin tools, if granted, reach no member's agents).")
  UUID owner;

  @Option(names = "--grant-capability", paramLabel = "CAPABILITY", description = "With --new-agent or --principal (an agent): grant"
    + " this capability to the agent principal; 'admin' gives its agents the built-in admin tools, with the owner's reach. Repeatable.")
  List<String> grants = new ArrayList<>();

  @Option(names = "--ttl", defaultValue = "30d", description = "Lifetime, such as 3600s, 12h or 30d (default: ${DEFAULT-VALUE}).")
  String ttl;

  @Option(names = "--data-dir", description = "Data dir with the signing secret (default: $CONCLAVE_DATA_DIR or ./data).")
  Path dataDir;

  @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "token", description = "What stdout gets: 'token' (the"
    + " token alone, default) or 'json' ({\"token\", \"tokenId\", \"principalId\", \"type\", \"name\", \"expiresAt\"}; with"
    + " --rotate-key {\"kid\"}).")
  String output;

  @Override
  public Integer call() throws Exception {
    Duration lifetime = parseTtl(ttl);
    if (!List.of("token", "json").contains(output)) {
      System.err.println("token: --output: '" + output + "' is not 'token' or 'json'");
      return 2;
    }
    Map<String, String> env = new HashMap<>(System.getenv());
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
    if (target.rotateKey || target.retireKey != null) {
      return keys(config);
    }
    // with no node running, the data dir's PostgreSQL starts on a thread of its own while Vert.x starts here (issue 45)
    CompletableFuture<EmbeddedPostgresServer> starting = null;
    EmbeddedPostgresServer started = null;
    DataDirOwner owner = null;
    PgUrl url = null;
    if (config.pgUrl().isPresent()) {
      url = config.pgUrl().get();
    } else {
      Optional<DataDirOwner.Holder> live = DataDirOwner.liveHolder(config.dataDir());
      Optional<DataDirOwner.Holder> last = live.or(() -> DataDirOwner.lastHolder(config.dataDir()));
      if (last.isPresent() && !last.get().embeddedDatabase()) {
        // a node of a cluster: its database is elsewhere, and a new one here would be a different Conclave
        System.err.println("token: the node on " + config.dataDir() + " (" + last.get().describe() + ") uses an external PostgreSQL;"
          + " set CONCLAVE_PG_URL (and CONCLAVE_AUTH_SECRET) as that node has them");
        return 2;
      }
      if (live.isPresent()) {
        Optional<PgUrl> running = EmbeddedPostgresServer.runningUrl(config.embeddedPgDir());
        if (running.isEmpty()) {
          System.err.println("token: " + config.dataDir() + " is held by " + live.get().describe()
            + ", whose PostgreSQL is not running yet; try again when it is ready");
          return 3;
        }
        url = running.get();
      } else {
        DataDirOwner.Attempt attempt = DataDirOwner.acquire(config.dataDir(), "token", true);
        if (attempt instanceof DataDirOwner.Held held) {
          System.err.println("token: " + config.dataDir() + " was just taken by " + held.holder().describe() + "; try again");
          return 3;
        }
        owner = ((DataDirOwner.Acquired) attempt).owner();
        System.err.println("token: starting the embedded PostgreSQL of " + config.dataDir() + " (no node is running on it)");
        starting = startPostgres(config);
      }
    }
    Vertx vertx = Vertx.vertx();
    try {
      if (starting != null) {
        started = awaitStart(starting);
        url = started.url();
      }
      Migrations.apply(url, List.of(new SchemaMigration("auth")));
      Pool pool = PgPools.create(vertx, url, 2, 16);
      PrincipalStore principals = new PrincipalStore(pool);
      TokenStore store = new TokenStore(pool);
      TokenService tokens = new TokenService(vertx, SigningKeys.resolve(config), store, new RevocationList(store),
        Clock.systemUTC(), new LiveCredentials(vertx), TokenService.Announcer.NONE);
      Principal principal = await(resolvePrincipal(principals));
      TokenService.IssuedToken issued = await(tokens.issue(principal, lifetime));
      AuditLog audit = new AuditLog(pool, "cli", new SimpleMeterRegistry());
      grants.forEach(c -> audit.record(AuditEvent.local("cli", "cli capability grant", "principal_id=" + principal.id(), "capability=" + c)));
      audit.record(AuditEvent.local("cli", "cli token issue", "principal_id=" + principal.id(), "token_id=" + issued.tokenId()));
      await(audit.flush());
      System.out.println(output.equals("json") ? json(issued, principal) : issued.token());
      System.err.println("token: principal=" + principal.id() + " type=" + principal.type().wire() + " name=" + principal.displayName()
        + " token-id=" + issued.tokenId() + " expires=" + issued.expiresAt());
      return 0;
    } catch (IllegalArgumentException e) {
      System.err.println("token: " + e.getMessage());
      return 2;
    } finally {
      await(vertx.close());
      if (started != null) {
        started.close();
      } else if (starting != null) {
        // failing before PostgreSQL was awaited (it may still be starting): stop it once it has
        starting.thenAccept(EmbeddedPostgresServer::close).exceptionally(e -> null).join();
      }
      if (owner != null) {
        owner.close();
      }
    }
  }

  private static CompletableFuture<EmbeddedPostgresServer> startPostgres(ConclaveConfig config) {
    CompletableFuture<EmbeddedPostgresServer> starting = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        starting.complete(EmbeddedPostgresServer.start(config.embeddedPgDir(), 0, Map.of()));
      } catch (Throwable e) {
        starting.completeExceptionally(e);
      }
    }, "conclave-token-postgres");
    thread.setDaemon(true);
    thread.start();
    return starting;
  }

  /** The started server, or what its start threw, as it was thrown. */
  private static EmbeddedPostgresServer awaitStart(CompletableFuture<EmbeddedPostgresServer> starting) {
    try {
      return starting.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    }
  }

  /** The principal to issue for, created first if asked, with the capabilities asked granted. */
  Future<Principal> resolvePrincipal(PrincipalStore principals) {
    for (String c : grants) {
      if (!CapabilityGrants.GRANTABLE.contains(c)) {
        throw new IllegalArgumentException("--grant-capability: '" + c + "' is not granted by admins (grantable: "
          + String.join(", ", new java.util.TreeSet<>(CapabilityGrants.GRANTABLE)) + "); an agent declares any other capability itself");
      }
    }
    if (!grants.isEmpty() && target.newAgent == null && target.principal == null) {
      throw new IllegalArgumentException("--grant-capability is for agent principals: use it with --new-agent or --principal");
    }
    return principal(principals).compose(p -> grant(principals, p, 0).map(p));
  }

  private Future<Void> grant(PrincipalStore principals, Principal principal, int i) {
    if (i == grants.size()) {
      return Future.succeededFuture();
    }
    return principals.capabilities().grant(principal, grants.get(i), Optional.empty())
      .recover(err -> Future.failedFuture(new IllegalArgumentException(err.getMessage(), err)))
      .compose(v -> grant(principals, principal, i + 1));
  }

  private Future<Principal> principal(PrincipalStore principals) {
    if (target.admin) {
      return principals.find(AdminBootstrap.ADMIN_PRINCIPAL_ID).map(p -> p.orElseThrow(() ->
        new IllegalArgumentException("no admin principal yet; start the node once first")));
    }
    if (target.principal != null) {
      return principals.find(target.principal).map(p -> p.orElseThrow(() ->
        new IllegalArgumentException("no principal with id " + target.principal)));
    }
    if (target.newAgent != null) {
      // no owner unless one is named: an agent is nobody's reach by default (issue 40, finding 3)
      if (owner == null) {
        return create(principals, PrincipalType.AGENT, target.newAgent, List.of(), Optional.empty());
      }
      return principals.find(owner).compose(found -> found.isEmpty()
        ? Future.failedFuture(new IllegalArgumentException("--owner: no principal with id " + owner))
        : create(principals, PrincipalType.AGENT, target.newAgent, List.of(), Optional.of(owner)));
    }
    if (target.newPack != null) {
      return create(principals, PrincipalType.PACK, target.newPack, List.of(), Optional.empty());
    }
    return create(principals, PrincipalType.CLIENT, target.newClient, List.of(Roles.MEMBER), Optional.empty());
  }

  private static Future<Principal> create(PrincipalStore principals, PrincipalType type, String name, List<String> roles,
                                          Optional<UUID> owner) {
    if (name.isBlank() || name.length() > 200) {
      throw new IllegalArgumentException("the name must be 1 to 200 characters");
    }
    return principals.create(UUID.randomUUID(), type, name, PrincipalStatus.APPROVED, roles, Optional.empty(), owner);
  }

  /** Rotates or retires a signing key in the data dir's key file; running nodes pick the change up within seconds. */
  private int keys(ConclaveConfig config) throws java.io.IOException {
    if (config.authSecret().isPresent()) {
      System.err.println("token: the signing keys come from CONCLAVE_AUTH_SECRET; rotate by setting it to 'newkid:newsecret,oldkid:oldsecret'"
        + " (newest first) on every node, and retire a key by removing it");
      return 2;
    }
    try {
      if (target.rotateKey) {
        String kid = SigningKeys.rotate(config.dataDir(), Clock.systemUTC());
        System.out.println(output.equals("json") ? new JsonObject().put("kid", kid).encode() : kid);
        System.err.println("token: new signing key " + kid + " in " + SigningKeys.file(config.dataDir())
          + "; running nodes sign with it within seconds, tokens of older keys stay valid until they expire or the key is retired");
      } else {
        SigningKeys.retire(config.dataDir(), target.retireKey);
        System.err.println("token: retired signing key " + target.retireKey + "; its tokens are no longer accepted");
      }
      return 0;
    } catch (IllegalArgumentException e) {
      System.err.println("token: " + e.getMessage());
      return 2;
    }
  }

  /** The issued token as one JSON line, so that a script takes the principal's id without decoding the token. */
  static String json(TokenService.IssuedToken issued, Principal principal) {
    return new JsonObject().put("token", issued.token()).put("tokenId", issued.tokenId().toString())
      .put("principalId", principal.id().toString()).put("type", principal.type().wire()).put("name", principal.displayName())
      .put("expiresAt", issued.expiresAt().toString()).encode();
  }

  static Duration parseTtl(String text) {
    Matcher m = TTL.matcher(text.trim());
    if (!m.matches()) {
      throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(new TokenCommand()),
        "--ttl: '" + text + "' is not a duration like 3600s, 12h or 30d");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  private static <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
