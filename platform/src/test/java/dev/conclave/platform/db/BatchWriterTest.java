package dev.conclave.platform.db;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The batch writer's flush: when it completes, what was added before it is written. */
class BatchWriterTest {

  private final List<List<String>> written = new ArrayList<>();
  private final List<Promise<Void>> pending = new ArrayList<>();
  private final BatchWriter<String> writer = new BatchWriter<>("test records", 100, 10, batch -> {
    Promise<Void> done = Promise.promise();
    pending.add(done);
    return done.future().onSuccess(v -> written.add(batch));
  }, new SimpleMeterRegistry().counter("lost"));

  @Test
  void aFlushDuringAWriteWaitsForWhatWasAddedBeforeIt() {
    writer.add("a");
    Future<Void> tick = writer.flush();
    writer.add("b");
    Future<Void> flushed = writer.flush();
    assertThat(flushed.isComplete()).as("a write is under way").isFalse();
    pending.get(0).complete();
    assertThat(tick.isComplete()).isFalse();
    assertThat(flushed.isComplete()).as("b is not written yet").isFalse();
    pending.get(1).complete();
    assertThat(flushed.succeeded()).isTrue();
    assertThat(tick.succeeded()).isTrue();
    assertThat(written).containsExactly(List.of("a"), List.of("b"));
  }

  @Test
  void aFailedWriteIsRetriedByTheNextFlushAndWaitersStillGoOn() {
    writer.add("a");
    Future<Void> first = writer.flush();
    Future<Void> waiter = writer.flush();
    pending.get(0).fail("database down");
    assertThat(first.succeeded()).isTrue();
    assertThat(waiter.succeeded()).isTrue();
    assertThat(writer.queued()).isEqualTo(1);
    Future<Void> retry = writer.flush();
    pending.get(1).complete();
    assertThat(retry.succeeded()).isTrue();
    assertThat(written).containsExactly(List.of("a"));
  }
}
