package dev.conclave.agent;

import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

class BackpressureTest extends ClientTestBase {

  private static final int CHUNKS = 200;
  private static final String CHUNK = "x".repeat(32 * 1024);

  /** A gateway that welcomes the agent and then stops reading its stream. */
  private FakeGateway slowReader() {
    return gateway("node-a").onRegister((conn, reg) -> {
      conn.welcome();
      conn.pauseReading();
    });
  }

  @Test
  void aProducerThatWaitsOnItsWritesIsHeldBackBySlowReaderAndCatchesUpAfter() {
    FakeGateway gw = slowReader();
    AtomicInteger accepted = new AtomicInteger();
    started(builder(gw.endpoint()).handler((msg, out) -> {
      Future<Void> chain = Future.succeededFuture();
      for (int i = 0; i < CHUNKS; i++) {
        int n = i;
        chain = chain.compose(v -> out.text(n + ":" + CHUNK)).onSuccess(v -> accepted.incrementAndGet());
      }
      return chain.compose(v -> out.done());
    }));
    AgentConn conn = gw.nextConnection();
    conn.sendMessage("r1", "stream a lot");

    Wait.until("some writes accepted", () -> accepted.get() > 0);
    Wait.sleep(300);
    int stalledAt = accepted.get();
    Wait.sleep(300);
    assertThat(accepted.get()).as("the producer is held back while the gateway does not read").isEqualTo(stalledAt);
    assertThat(stalledAt).isLessThan(CHUNKS / 4);

    conn.resumeReading();

    List<MessageResponse> rs = conn.responsesUntilTerminal();
    assertThat(accepted.get()).isEqualTo(CHUNKS);
    assertThat(rs).hasSize(CHUNKS + 1);
    for (int i = 0; i < CHUNKS; i++) {
      assertThat(rs.get(i).getText()).startsWith(i + ":");
    }
    assertThat(rs.get(CHUNKS).hasDone()).isTrue();
  }

  @Test
  void aProducerThatIgnoresItsWritesHitsTheBoundInsteadOfBufferingWithoutLimit() {
    FakeGateway gw = slowReader();
    List<Future<Void>> writes = new CopyOnWriteArrayList<>();
    AtomicReference<Counts> rightAfterWriting = new AtomicReference<>();
    int bound = 8;
    started(builder(gw.endpoint()).maxQueuedWrites(bound).handler((msg, out) -> {
      for (int i = 0; i < CHUNKS; i++) {
        writes.add(out.text(i + ":" + CHUNK));
      }
      rightAfterWriting.set(Counts.of(writes));
      return Future.join(new ArrayList<>(writes)).transform(ar -> out.done());
    }));
    AgentConn conn = gw.nextConnection();
    conn.sendMessage("r1", "flood");

    Wait.until("all writes issued", () -> rightAfterWriting.get() != null);
    Counts peak = rightAfterWriting.get();
    assertThat(peak.waiting()).as("events held for the slow reader, at most the bound").isBetween(1L, (long) bound);
    assertThat(peak.failed()).as("writes beyond the bound fail at once").isEqualTo(CHUNKS - peak.accepted() - peak.waiting());
    assertThat(peak.overflowed()).as("and say why").isEqualTo(peak.failed());
    Wait.until("the agent side settles against the paused reader", () -> {
      Counts before = Counts.of(writes);
      Wait.sleep(100);
      return before.equals(Counts.of(writes));
    });
    Counts settled = Counts.of(writes);
    assertThat(settled.failed()).as("nothing that was held is dropped").isEqualTo(peak.failed());
    assertThat(settled.accepted() + settled.waiting()).isLessThan(CHUNKS / 4);

    conn.resumeReading();

    List<MessageResponse> rs = conn.responsesUntilTerminal();
    long delivered = CHUNKS - peak.failed();
    Wait.until("held writes complete", () -> Counts.of(writes).accepted() == delivered);
    assertThat(rs).hasSize((int) delivered + 1);
    for (int i = 0; i < delivered; i++) {
      assertThat(rs.get(i).getText()).as("in order").startsWith(i + ":");
    }
    assertThat(rs.get(rs.size() - 1).hasDone()).isTrue();
  }

  private record Counts(long accepted, long waiting, long failed, long overflowed) {
    static Counts of(List<Future<Void>> writes) {
      long accepted = 0;
      long waiting = 0;
      long failed = 0;
      long overflowed = 0;
      for (Future<Void> f : writes) {
        if (f.succeeded()) {
          accepted++;
        } else if (f.failed()) {
          failed++;
          if (f.cause() instanceof WriteQueueOverflowException) {
            overflowed++;
          }
        } else {
          waiting++;
        }
      }
      return new Counts(accepted, waiting, failed, overflowed);
    }
  }
}
