package dev.conclave.gateway.sessions;

import dev.conclave.gateway.streaming.Followers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A stopping node's drain: with nothing to drain it finishes at once, from whatever thread stops the node. */
class SessionDrainTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void nothingToDrainFinishesWithoutWaiting() {
    Followers followers = new Followers();
    boolean[] closed = {false};
    followers.add(() -> closed[0] = true);
    SessionDrain drain = new SessionDrain(vertx, "n1", new LocalSessions(), followers);
    Future<Void> drained = drain.drain(Duration.ofSeconds(10));
    assertThat(drained.succeeded()).as("complete on return, not after a timer").isTrue();
    assertThat(closed[0]).as("followers closed").isTrue();
  }

  @Test
  void drainsCalledFromForeignThreadsAllFinish() throws Exception {
    // the shutdown hook calls drain from a thread of its own; each must end, none may throw
    for (int i = 0; i < 200; i++) {
      SessionDrain drain = new SessionDrain(vertx, "n1", new LocalSessions(), new Followers());
      Future<Void> drained = drain.drain(Duration.ofMillis(i % 3 == 0 ? 0 : 1500));
      drained.await(5, TimeUnit.SECONDS);
      assertThat(drained.succeeded()).isTrue();
    }
  }
}
