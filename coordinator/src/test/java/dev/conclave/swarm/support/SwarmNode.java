package dev.conclave.swarm.support;

import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.swarm.app.CoordinatorRole;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A real node running the coordinator role (fresh PostgreSQL database, real ports) whose time is a
 * {@link MutableClock}; background jobs, event publishing and the file transport poll fast. Rate
 * limits are off unless a test turns them on (CONCLAVE_SWARM_RATE_LIMITS=true).
 */
public final class SwarmNode implements AutoCloseable {

  public static final String SHARED_SECRET = "swarm-tests-shared-signing-secret-0123456789";

  private final TestNode node;
  private final MutableClock clock;
  private final SwarmApi api;
  private final EventLog events;

  private SwarmNode(TestNode node, MutableClock clock) {
    this.node = node;
    this.clock = clock;
    this.api = new SwarmApi(node.httpPort(), node.adminToken());
    this.events = new EventLog(node.runtime().vertx());
  }

  public static SwarmNode start() {
    return start(MutableClock.startingNow(), null, Map.of());
  }

  public static SwarmNode start(Map<String, String> env) {
    return start(MutableClock.startingNow(), null, env);
  }

  /** A node on {@code database} (null: a fresh one) with {@code clock}; nodes sharing a database share a secret. */
  public static SwarmNode start(MutableClock clock, PgUrl database, Map<String, String> env) {
    Map<String, String> vars = new HashMap<>();
    vars.put("CONCLAVE_SWARM_JOB_INTERVAL_MS", "50");
    vars.put("CONCLAVE_SWARM_EVENT_POLL_MS", "50");
    vars.put("CONCLAVE_SWARM_FILE_POLL_MS", "50");
    vars.put("CONCLAVE_SWARM_RATE_LIMITS", "false");
    vars.put("CONCLAVE_AUTH_SECRET", SHARED_SECRET);
    vars.put("CONCLAVE_GRPC_PORT", String.valueOf(FreePorts.next()));
    vars.put("CONCLAVE_HTTP_PORT", String.valueOf(FreePorts.next()));
    vars.putAll(env);
    TestNode.Builder builder = TestNode.builder().role(new CoordinatorRole(clock));
    vars.forEach(builder::env);
    if (database != null) {
      builder.database(database);
    }
    return new SwarmNode(builder.start(), clock);
  }

  public TestNode node() {
    return node;
  }

  public MutableClock clock() {
    return clock;
  }

  /** HTTP as the admin. */
  public SwarmApi api() {
    return api;
  }

  public EventLog events() {
    return events;
  }

  /**
   * Moves the clock forward in steps of at most a minute, heartbeating {@code agents} after each, so
   * that they stay active (the reaper runs in the background and would otherwise see them stale).
   */
  public void advanceKeepingAlive(Duration by, String... agents) {
    Duration left = by;
    while (!left.isZero()) {
      Duration step = left.compareTo(Duration.ofMinutes(1)) > 0 ? Duration.ofMinutes(1) : left;
      clock.advance(step);
      left = left.minus(step);
      for (String agent : agents) {
        Reply reply = api.heartbeat(agent, "idle");
        if (reply.status() != 200) {
          throw new IllegalStateException("heartbeat of " + agent + " failed: " + reply);
        }
      }
    }
  }

  public PgUrl database() {
    return node.database();
  }

  /** A JDBC connection of its own to the node's database, for tests that run SQL as a direct-database agent would. */
  public java.sql.Connection jdbc() throws java.sql.SQLException {
    PgUrl url = database();
    return java.sql.DriverManager.getConnection(url.jdbcUrl(), url.user(), url.password().orElse(null));
  }

  /** A token for a new principal with the member role (not an admin). */
  public String memberToken(String name) {
    try {
      var context = node.runtime().context();
      Principal principal = context.principals().create(UUID.randomUUID(), PrincipalType.AGENT, name, PrincipalStatus.APPROVED,
        List.of(Roles.MEMBER), Optional.empty()).await(10, TimeUnit.SECONDS);
      return context.tokens().issue(principal, Duration.ofHours(1))
        .await(10, TimeUnit.SECONDS).token();
    } catch (Exception e) {
      throw new IllegalStateException("could not issue a member token", e);
    }
  }

  @Override
  public void close() {
    events.close();
    api.close();
    node.close();
  }
}
