package dev.conclave.e2e.observability;

import dev.conclave.e2e.support.LocalCluster;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 44, a swarm task, with real node processes: two coordinator nodes on one database, tracing on
 * (OTLP/HTTP to a receiver in the test). An operator creates a task on the first node with a
 * {@code traceparent}; an agent claims it on the second, which hands it the task's trace, reports
 * progress, takes and gives back a lease, and completes it there, sending that trace with its calls
 * as an agent program would. One trace holds the creation's span (the operator's span its parent),
 * the claim's and the attempt's spans made on the second node, and the second node's spans for the
 * agent's calls.
 */
class SwarmTracingIT {

  private static final String SECRET = "e2e-swarm-tracing-secret-0123456789abcdef01234";
  private static final String TRACE_ID = "1bf7651916cd43dd8448eb211c80319d";
  private static final String OPERATOR_SPAN = "c7ad6b7169203332";
  private static final int SERVER = 2;
  private static final int CONSUMER = 5;

  @Test
  void aTaskCreatedOnOneNodeAndWorkedOnTheOtherIsOneTrace() throws Exception {
    Vertx vertx = Vertx.vertx();
    WebClient http = WebClient.create(vertx);
    try (OtlpReceiver receiver = new OtlpReceiver(vertx);
         LocalCluster cluster = new LocalCluster(2, "coordinator", SECRET, 5, Map.of(
           "CONCLAVE_SWARM_RATE_LIMITS", "false",
           "OTEL_TRACES_EXPORTER", "otlp",
           "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + receiver.port(),
           "OTEL_BSP_SCHEDULE_DELAY", "100"))) {
      try {
        cluster.startAll();
        String admin = cluster.adminToken();
        int first = cluster.httpPort(0);
        int second = cluster.httpPort(1);

        JsonObject task = new JsonObject().put("id", "traced-task").put("title", "a traced task")
          .put("requiredSkills", new JsonArray().add("tracing"));
        JsonObject created = call(http.post(first, "127.0.0.1", "/api/v1/tasks"), admin,
          "00-" + TRACE_ID + "-" + OPERATOR_SPAN + "-01", task, 201);
        assertThat(created.getString("id")).isEqualTo("traced-task");

        JsonObject agent = new JsonObject().put("id", "traced-worker").put("name", "traced worker").put("type", "custom")
          .put("capabilities", new JsonObject().put("skills", new JsonArray().add("tracing")).put("maxTaskMinutes", 30)
            .put("canRunTests", false).put("canRunBuild", false).put("canAccessBrowser", false));
        call(http.post(second, "127.0.0.1", "/api/v1/agents/register"), admin, null,
          v1().put("operation", "REGISTER").put("agent", agent), 200);
        JsonObject claim = call(http.post(second, "127.0.0.1", "/api/v1/tasks/claim"), admin, null,
          v1().put("agentId", "traced-worker"), 200);
        assertThat(claim.getJsonObject("task").getString("id")).as(claim.encode()).isEqualTo("traced-task");
        String traceparent = claim.getJsonObject("task").getString("traceparent");
        assertThat(traceparent).as("the claimed task carries its trace").startsWith("00-" + TRACE_ID + "-");

        // the agent's calls, on the second node, in the task's trace
        call(http.post(second, "127.0.0.1", "/api/v1/tasks/traced-task/progress"), admin, traceparent,
          v1().put("agentId", "traced-worker").put("progress", new JsonObject().put("phase", "implementing")
            .put("percentComplete", 50).put("description", "half way")), 200);
        call(http.post(second, "127.0.0.1", "/api/v1/leases/acquire"), admin, traceparent,
          v1().put("agentId", "traced-worker").put("taskId", "traced-task").put("filePath", "src/Traced.java")
            .put("durationMs", 60_000), 200);
        call(http.post(second, "127.0.0.1", "/api/v1/leases/release"), admin, traceparent,
          v1().put("agentId", "traced-worker").put("filePath", "src/Traced.java"), 200);
        call(http.post(second, "127.0.0.1", "/api/v1/tasks/traced-task/complete"), admin, traceparent,
          v1().put("agentId", "traced-worker").put("result", new JsonObject().put("filesCreated", new JsonArray())
            .put("filesModified", new JsonArray().add("src/Traced.java")).put("filesDeleted", new JsonArray())
            .put("summary", "done").put("learnings", new JsonArray())), 200);

        String taskSpan = traceparent.substring(36, 52);
        await(() -> receiver.spans().stream().anyMatch(s -> s.name().equals("conclave.task.attempt"))
            && agentCalls(receiver, taskSpan).size() == 4,
          "the attempt's span and the agent's four calls reached the receiver");
        List<OtlpReceiver.ReceivedSpan> trace = receiver.spans().stream().filter(s -> s.traceId().equals(TRACE_ID)).toList();
        assertThat(trace).as("the creation's span on the first node, a child of the operator's")
          .anySatisfy(s -> {
            assertThat(s.spanId()).isEqualTo(taskSpan);
            assertThat(s.kind()).isEqualTo(SERVER);
            assertThat(s.parentSpanId()).isEqualTo(OPERATOR_SPAN);
          });
        assertThat(trace).as("the attempt's span, made on the second node, a child of the creation's")
          .anySatisfy(s -> {
            assertThat(s.name()).isEqualTo("conclave.task.attempt");
            assertThat(s.kind()).isEqualTo(CONSUMER);
            assertThat(s.parentSpanId()).isEqualTo(taskSpan);
            assertThat(s.attributes()).containsEntry("conclave.task_id", "traced-task")
              .containsEntry("conclave.agent_id", "traced-worker")
              .containsEntry("conclave.task.outcome", "completed")
              .containsEntry("conclave.node_id", "node-2");
          });
        assertThat(trace).as("the claim's span on the second node, at once")
          .anySatisfy(s -> {
            assertThat(s.name()).isEqualTo("conclave.task.claim");
            assertThat(s.parentSpanId()).isEqualTo(taskSpan);
            assertThat(s.attributes()).containsEntry("conclave.node_id", "node-2").containsEntry("conclave.agent_id", "traced-worker");
          });
        assertThat(agentCalls(receiver, taskSpan)).as("the second node's spans for the agent's progress, lease, release and complete calls")
          .hasSize(4).allSatisfy(s -> assertThat(s.traceId()).isEqualTo(TRACE_ID));
      } catch (Throwable t) {
        cluster.dumpLogs(Path.of("target", "swarm-tracing-it-logs"));
        throw t;
      }
    } finally {
      http.close();
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** The server spans whose parent is the task's span: the agent's calls that sent the task's traceparent. */
  private static List<OtlpReceiver.ReceivedSpan> agentCalls(OtlpReceiver receiver, String taskSpan) {
    return receiver.spans().stream().filter(s -> s.kind() == SERVER && s.parentSpanId().equals(taskSpan)).toList();
  }

  private static JsonObject v1() {
    return new JsonObject().put("protocolVersion", "1.0");
  }

  private static JsonObject call(HttpRequest<Buffer> request, String token, String traceparent, JsonObject body, int expected)
    throws Exception {
    request.putHeader("authorization", "Bearer " + token);
    if (traceparent != null) {
      request.putHeader("traceparent", traceparent);
    }
    HttpResponse<Buffer> response = request.sendJsonObject(body).await(30, TimeUnit.SECONDS);
    assertThat(response.statusCode()).as(response.bodyAsString()).isEqualTo(expected);
    return response.bodyAsJsonObject();
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out: " + what);
      }
      Thread.sleep(100);
    }
  }
}
