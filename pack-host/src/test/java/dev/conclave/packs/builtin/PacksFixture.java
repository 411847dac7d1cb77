package dev.conclave.packs.builtin;

import dev.conclave.platform.config.PgUrl;
import dev.conclave.platform.db.Migrations;
import dev.conclave.platform.db.PgPools;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.testing.Await;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.fail;

/**
 * What built-in pack tests run on: Vert.x, a fresh PostgreSQL database migrated with schema
 * {@code packs}, the pool, and a hand-moved clock. Tools are called the way the dispatcher calls
 * them: {@link BuiltinTool#run} with a parsed object.
 */
final class PacksFixture implements AutoCloseable {

  final Vertx vertx;
  final PgUrl url;
  final Pool pool;
  final TestClock clock = new TestClock(Instant.parse("2026-01-28T10:00:00.123456Z"));

  private PacksFixture(Vertx vertx, PgUrl url, Pool pool) {
    this.vertx = vertx;
    this.url = url;
    this.pool = pool;
  }

  static PacksFixture start() {
    PgUrl url = TestDatabase.freshDatabase();
    Migrations.apply(url, List.of(new SchemaMigration("packs")));
    Vertx vertx = Vertx.vertx();
    return new PacksFixture(vertx, url, PgPools.create(vertx, url, 4, 100));
  }

  /** A new agent, unknown to every other test. */
  static ToolCaller newAgent(String name) {
    return new ToolCaller(name + "-" + UUID.randomUUID().toString().substring(0, 8), UUID.randomUUID());
  }

  /** Runs the tool and returns its output, failing the test if the tool fails. */
  JsonObject ok(BuiltinPack pack, String tool, ToolCaller caller, JsonObject input) {
    try {
      return new JsonObject(Await.await(find(pack, tool).run(caller, input)));
    } catch (RuntimeException e) {
      throw new AssertionError(tool + " failed: " + e, e);
    }
  }

  /** Runs the tool, expecting a {@link ToolFailure}, and returns the message the agent sees. */
  String fails(BuiltinPack pack, String tool, ToolCaller caller, JsonObject input) {
    ToolFailure failure = catchThrowableOfType(ToolFailure.class, () -> fail(tool + " should have failed but returned "
      + Await.await(find(pack, tool).run(caller, input))));
    assertThat(failure).as("a failure the agent sees").isNotNull();
    return failure.getMessage();
  }

  /** Runs SQL directly (test set-up and constraint checks). */
  void sql(String statement) {
    TestDatabase.execute(url, statement);
  }

  static BuiltinTool find(BuiltinPack pack, String name) {
    return pack.tools().stream().filter(t -> t.name().equals(name)).findFirst()
      .orElseThrow(() -> new AssertionError("no tool " + name + " in " + pack.packId()));
  }

  @Override
  public void close() {
    Await.await(pool.close(), java.time.Duration.ofSeconds(10));
    Await.await(vertx.close(), java.time.Duration.ofSeconds(10));
  }
}
