package dev.conclave.platform.runtime;

import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The roles start side by side (issue 45), come back in the order they were given, and a role that
 * fails to start fails the node with its message once the others are done.
 */
class RoleStartsTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  @Test
  void theRolesStartSideBySideAndComeBackInTheirOrder() {
    CountDownLatch secondBegan = new CountDownLatch(1);
    // the first role's start goes on only once the second's has begun: one after the other, it never would
    RoleModule first = role(RoleName.GATEWAY, () -> {
      if (!awaitLatch(secondBegan)) {
        return Future.failedFuture("the coordinator's start did not begin while the gateway's was under way");
      }
      return running("gateway");
    });
    RoleModule second = role(RoleName.COORDINATOR, () -> {
      secondBegan.countDown();
      return running("coordinator");
    });

    List<RunningRole> roles = RoleStarts.startAll(List.of(first, second), NodeRuntime::await, null);

    assertThat(roles).map(RoleStartsTest::name).containsExactly("gateway", "coordinator");
  }

  @Test
  void aRoleThatFailsFailsTheStartWithItsMessageOnceTheOthersAreDone() {
    CountDownLatch failed = new CountDownLatch(1);
    AtomicBoolean otherDone = new AtomicBoolean();
    RoleModule slow = role(RoleName.GATEWAY, () -> {
      awaitLatch(failed);
      return vertx.timer(200).compose(t -> {
        otherDone.set(true);
        return running("gateway");
      });
    });
    RoleModule failing = role(RoleName.PACK_HOST, () -> {
      failed.countDown();
      return Future.failedFuture("no tools today");
    });

    Throwable thrown = catchThrowable(() -> RoleStarts.startAll(List.of(slow, failing), NodeRuntime::await, null));

    assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("could not start role pack-host: no tools today");
    assertThat(otherDone).as("the other role's start had finished").isTrue();
  }

  @Test
  void aSettingThrownByARoleComesOutAsItWas() {
    dev.conclave.settings.ConfigException bad = new dev.conclave.settings.ConfigException("CONCLAVE_X", "must be a number");
    RoleModule throwing = role(RoleName.COORDINATOR, () -> {
      throw bad;
    });

    assertThat(catchThrowable(() -> RoleStarts.startAll(List.of(throwing), NodeRuntime::await, null))).isSameAs(bad);
  }

  private static boolean awaitLatch(CountDownLatch latch) {
    try {
      return latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static String name(RunningRole role) {
    return ((Named) role).name();
  }

  private static Future<RunningRole> running(String name) {
    return Future.succeededFuture(new Named(name));
  }

  private record Named(String name) implements RunningRole {
    @Override
    public List<dev.conclave.platform.server.EdgeContribution> contributions() {
      return List.of();
    }

    @Override
    public Future<Void> stop() {
      return Future.succeededFuture();
    }
  }

  private static RoleModule role(RoleName name, Supplier<Future<RunningRole>> start) {
    return new RoleModule() {
      @Override
      public RoleName role() {
        return name;
      }

      @Override
      public List<SchemaMigration> migrations() {
        return List.of();
      }

      @Override
      public Future<RunningRole> start(NodeContext context) {
        return start.get();
      }
    };
  }
}
