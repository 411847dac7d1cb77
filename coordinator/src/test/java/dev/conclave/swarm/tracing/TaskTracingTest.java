package dev.conclave.swarm.tracing;

import dev.conclave.platform.testing.MemorySpanExporterProvider;
import dev.conclave.swarm.support.Reply;
import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A swarm task's trace (issue 44): the task keeps the trace it was created in; the claim hands it
 * to the agent; each attempt, claim to complete or fail, is one span of that trace with the
 * progress reports and leases as its events; a retry is another attempt span of the same trace.
 */
class TaskTracingTest {

  private static final String TRACE_ID = "7bf92f3577b34da6a3ce929d0e0e4739";
  private static final String CLIENT_SPAN = "00f067aa0ba902b7";
  private static final String SKILL = "traced-skill";

  @BeforeEach
  void traceIntoMemory() {
    System.setProperty("otel.traces.exporter", "memory");
    System.setProperty("otel.bsp.schedule.delay", "50");
    MemorySpanExporterProvider.SPANS.reset();
  }

  @AfterEach
  void clear() {
    System.clearProperty("otel.traces.exporter");
    System.clearProperty("otel.bsp.schedule.delay");
    MemorySpanExporterProvider.SPANS.reset();
  }

  @Test
  void claimProgressLeasesAndCompletionOfEveryAttemptAreOneTrace() {
    String traceparent;
    try (SwarmNode swarm = SwarmNode.start()) {
      SwarmApi api = swarm.api();
      JsonObject task = new JsonObject().put("id", "traced").put("title", "traced work")
        .put("requiredSkills", new JsonArray().add(SKILL)).put("maxRetries", 2);
      Reply created = Await.await(api.send(HttpMethod.POST, "/api/v1/tasks", task.toBuffer(),
        Map.of("traceparent", "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01", "content-type", "application/json")));
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
      assertThat(api.register("first", List.of(SKILL)).status()).isEqualTo(200);
      assertThat(api.register("second", List.of(SKILL)).status()).isEqualTo(200);

      // attempt 1: claimed, progress, a lease, then a failure that will be retried
      Reply claim = api.claim("first");
      assertThat(claim.json().getJsonObject("task").getString("id")).as(claim.toString()).isEqualTo("traced");
      traceparent = claim.json().getJsonObject("task").getString("traceparent");
      assertThat(traceparent).as("the claimed task carries its trace for the agent").startsWith("00-" + TRACE_ID + "-");
      assertThat(api.task("traced").getString("traceparent")).isEqualTo(traceparent);
      assertThat(api.progress("first", "traced", 30).status()).isEqualTo(200);
      assertThat(api.acquire("first", "traced", "src/Traced.java", 60_000).json().getBoolean("success")).isTrue();
      Reply fail = api.fail("first", "traced", "task_error", true);
      assertThat(fail.json().getBoolean("willRetry")).as(fail.toString()).isTrue();

      // attempt 2, after the backoff, by the other agent: progress, a lease taken and given back, done
      swarm.advanceKeepingAlive(Duration.ofMillis(fail.json().getLong("retryAfter") + 1), "first", "second");
      Waits.until(() -> "ready".equals(api.task("traced").getString("status")), Duration.ofSeconds(20), "the retry");
      Reply again = api.claim("second");
      assertThat(again.json().getJsonObject("task").getString("traceparent")).as(again.toString()).isEqualTo(traceparent);
      assertThat(api.progress("second", "traced", 80).status()).isEqualTo(200);
      assertThat(api.acquire("second", "traced", "src/Traced.java", 60_000).json().getBoolean("success")).isTrue();
      assertThat(api.release("second", "src/Traced.java").status()).isEqualTo(200);
      Reply done = api.complete("second", "traced");
      assertThat(done.status()).as(done.toString()).isEqualTo(200);
      Waits.until(() -> attempts().size() == 2, Duration.ofSeconds(20), "two attempt spans");
    }

    String taskSpan = traceparent.substring(36, 52);
    SpanData creation = MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream()
      .filter(s -> s.getSpanId().equals(taskSpan)).findFirst().orElseThrow();
    assertThat(creation.getKind()).as("the task keeps the span of the request that created it").isEqualTo(SpanKind.SERVER);
    assertThat(creation.getParentSpanId()).as("whose parent is the creator's span").isEqualTo(CLIENT_SPAN);

    List<SpanData> attempts = attempts();
    assertThat(attempts).allSatisfy(a -> {
      assertThat(a.getTraceId()).isEqualTo(TRACE_ID);
      assertThat(a.getParentSpanId()).isEqualTo(taskSpan);
      assertThat(a.getKind()).isEqualTo(SpanKind.CONSUMER);
    });
    SpanData first = attempts.get(0);
    assertThat(attribute(first, AttemptTraces.ATTEMPT_NUMBER)).isEqualTo(1L);
    assertThat(attribute(first, AttemptTraces.AGENT_ID)).isEqualTo("first");
    assertThat(attribute(first, AttemptTraces.OUTCOME)).isEqualTo("retry");
    assertThat(first.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(first.getEvents()).extracting(EventData::getName)
      .containsExactly("task.claimed", "task.progress", "lease.acquired", "lease.released", "task.failed");
    SpanData second = attempts.get(1);
    assertThat(attribute(second, AttemptTraces.ATTEMPT_NUMBER)).isEqualTo(2L);
    assertThat(attribute(second, AttemptTraces.AGENT_ID)).isEqualTo("second");
    assertThat(attribute(second, AttemptTraces.OUTCOME)).isEqualTo("completed");
    assertThat(second.getEvents()).extracting(EventData::getName)
      .containsExactly("task.claimed", "task.progress", "lease.acquired", "lease.released", "task.completed");
    assertThat(second.getEvents().get(1).getAttributes().get(AttributeKey.longKey("conclave.percent_complete"))).isEqualTo(80L);
    assertThat(second.getEvents().get(2).getAttributes().get(AttributeKey.stringKey("conclave.file_path"))).isEqualTo("src/Traced.java");
    assertThat(second.getStartEpochNanos()).as("the attempt begins at its claim, after the first ended")
      .isGreaterThanOrEqualTo(first.getEndEpochNanos());

    List<SpanData> claims = MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream()
      .filter(s -> s.getName().equals(ClaimSpans.CLAIM)).toList();
    assertThat(claims).as("each claim shows at once, linked to the agent's call").hasSize(2).allSatisfy(c -> {
      assertThat(c.getTraceId()).isEqualTo(TRACE_ID);
      assertThat(c.getParentSpanId()).isEqualTo(taskSpan);
      assertThat(c.getLinks()).hasSize(1);
      assertThat(c.getLinks().get(0).getSpanContext().getTraceId()).isNotEqualTo(TRACE_ID);
    });
    assertThat(claims).extracting(c -> attribute(c, AttemptTraces.AGENT_ID)).containsExactlyInAnyOrder("first", "second");
  }

  @Test
  void anAttemptTheReaperEndsIsASpanToo() {
    try (SwarmNode swarm = SwarmNode.start()) {
      SwarmApi api = swarm.api();
      JsonObject task = new JsonObject().put("id", "orphaned").put("title", "orphaned work")
        .put("requiredSkills", new JsonArray().add(SKILL));
      Reply created = Await.await(api.send(HttpMethod.POST, "/api/v1/tasks", task.toBuffer(),
        Map.of("traceparent", "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01")));
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
      assertThat(api.register("silent", List.of(SKILL)).status()).isEqualTo(200);
      assertThat(api.claim("silent").json().getJsonObject("task").getString("id")).isEqualTo("orphaned");
      assertThat(api.acquire("silent", "orphaned", "src/Orphan.java", 3_600_000).json().getBoolean("success")).isTrue();

      // no heartbeat for over two minutes: the reaper fails the task (its events go through the outbox)
      swarm.clock().advance(Duration.ofSeconds(121));
      Waits.until(() -> attempts().size() == 1, Duration.ofSeconds(20), "the reaped attempt's span");
    }
    SpanData attempt = attempts().get(0);
    assertThat(attempt.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(attribute(attempt, AttemptTraces.OUTCOME)).isEqualTo("retry");
    assertThat(attribute(attempt, AttemptTraces.FAILURE_TYPE)).isEqualTo("agent_crash");
    assertThat(attempt.getEvents()).extracting(EventData::getName)
      .containsExactly("task.claimed", "lease.acquired", "lease.released", "task.failed");
    assertThat(attempt.getEndEpochNanos() - attempt.getStartEpochNanos()).as("claim to the reaper's run, in the coordinator's time")
      .isGreaterThanOrEqualTo(Duration.ofSeconds(121).toNanos());
  }

  private static List<SpanData> attempts() {
    return MemorySpanExporterProvider.SPANS.getFinishedSpanItems().stream()
      .filter(s -> s.getName().equals(AttemptTraces.ATTEMPT))
      .sorted(Comparator.comparing(s -> (Long) attribute(s, AttemptTraces.ATTEMPT_NUMBER)))
      .toList();
  }

  private static Object attribute(SpanData span, String key) {
    return span.getAttributes().asMap().entrySet().stream().filter(e -> e.getKey().getKey().equals(key))
      .map(Map.Entry::getValue).findFirst().orElse(null);
  }
}
