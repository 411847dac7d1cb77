package dev.conclave.agent.pack;

import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.client.PackClientBuilder;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.ExecuteToolResponse.ResultCase;
import dev.conclave.proto.coven.ExecuteToolResponse;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Tool calls: concurrency, results, failures, the busy limit and how results reach the server. */
class PackCallsTest extends PackTestBase {

  /** A tool whose calls finish when the test says so. */
  private final Map<String, Promise<String>> held = new ConcurrentHashMap<>();

  private PackTool held(String name) {
    return PackTool.builder(name).handler(call -> {
      Promise<String> p = Promise.promise();
      held.put(call.requestId(), p);
      return p.future();
    }).build();
  }

  private PackStream registered(PackClientBuilder builder, FakePackHost host) {
    started(builder);
    return host.nextStream();
  }

  @Test
  void overlappingCallsAreAnsweredUnderTheirOwnIds() {
    FakePackHost host = host();
    PackStream stream = registered(builder(host.endpoint()).tool(held("slow")), host);

    for (int i = 1; i <= 5; i++) {
      stream.call("r" + i, "slow", "{\"n\":" + i + "}");
    }
    Wait.until("all five run at once", () -> held.size() == 5);
    for (int i = 5; i >= 1; i--) {
      held.get("r" + i).complete("{\"answer\":" + (i * 10) + "}");   // from the test thread, in reverse order
    }

    Map<String, String> outputs = new HashMap<>();
    for (int i = 0; i < 5; i++) {
      ExecuteToolResponse r = host.nextResult();
      outputs.put(r.getRequestId(), r.getOutputJson());
    }
    assertThat(outputs).containsOnly(
      Map.entry("r1", "{\"answer\":10}"), Map.entry("r2", "{\"answer\":20}"), Map.entry("r3", "{\"answer\":30}"),
      Map.entry("r4", "{\"answer\":40}"), Map.entry("r5", "{\"answer\":50}"));
  }

  @Test
  void handlersReadTheirInputAsJson() {
    FakePackHost host = host();
    PackTool add = PackTool.builder("add").handler(call -> {
      JsonObject in = call.input();
      return Future.succeededFuture(new JsonObject().put("sum", in.getInteger("a") + in.getInteger("b")).encode());
    }).build();
    PackStream stream = registered(builder(host.endpoint()).tool(add), host);

    stream.call("r1", "add", "{\"a\":2,\"b\":3}");
    stream.call("r2", "add", "[1,2]");

    assertThat(host.nextResult().getOutputJson()).isEqualTo("{\"sum\":5}");
    assertThat(host.nextResult().getError()).isEqualTo("invalid input for tool add: expected a JSON object");
  }

  @Test
  void failuresBecomeTheCallsError() {
    FakePackHost host = host();
    PackClientBuilder b = builder(host.endpoint())
      .tool(PackTool.builder("domain").handler(call -> Future.failedFuture(new PackToolException("unknown city: Atlantis"))).build())
      .tool(PackTool.builder("crash").handler(call -> Future.failedFuture(new IllegalStateException("disk full"))).build())
      .tool(PackTool.builder("throws").handler(call -> {
        throw new IllegalArgumentException("bad state");
      }).build())
      .tool(PackTool.builder("nothing").handler(call -> Future.succeededFuture(null)).build())
      .tool(PackTool.builder("prose").handler(call -> Future.succeededFuture("sunny, 21 degrees")).build());
    PackStream stream = registered(b, host);

    stream.call("r1", "domain", "{}");
    assertThat(host.nextResult().getError()).isEqualTo("unknown city: Atlantis");
    stream.call("r2", "crash", "{}");
    assertThat(host.nextResult().getError()).isEqualTo("tool crash failed: disk full");
    stream.call("r3", "throws", "{}");
    assertThat(host.nextResult().getError()).isEqualTo("tool throws failed: bad state");
    stream.call("r4", "nothing", "{}");
    ExecuteToolResponse nothing = host.nextResult();
    assertThat(nothing.getResultCase()).isEqualTo(ResultCase.OUTPUT_JSON);
    assertThat(nothing.getOutputJson()).isEqualTo("{}");
    stream.call("r5", "prose", "{}");
    assertThat(host.nextResult().getError()).isEqualTo("tool prose failed: its output is not valid JSON");
  }

  @Test
  void anUnknownToolIsAnError() {
    FakePackHost host = host();
    PackStream stream = registered(builder(host.endpoint()).tool(echo("echo")), host);

    stream.call("r1", "nope", "{}");

    ExecuteToolResponse r = host.nextResult();
    assertThat(r.getRequestId()).isEqualTo("r1");
    assertThat(r.getError()).isEqualTo("unknown tool nope");
  }

  @Test
  void callsBeyondTheLimitAreAnsweredBusy() {
    FakePackHost host = host();
    PackStream stream = registered(builder(host.endpoint()).maxConcurrentCalls(2).tool(held("slow")), host);

    stream.call("r1", "slow", "{}");
    stream.call("r2", "slow", "{}");
    Wait.until("two calls run", () -> held.size() == 2);
    stream.call("r3", "slow", "{}");

    ExecuteToolResponse busy = host.nextResult();
    assertThat(busy.getRequestId()).isEqualTo("r3");
    assertThat(busy.getError()).isEqualTo("pack weather is busy");

    held.get("r1").complete("{\"done\":1}");
    assertThat(host.nextResult().getRequestId()).isEqualTo("r1");
    stream.call("r4", "slow", "{}");
    Wait.until("a freed slot takes the next call", () -> held.containsKey("r4"));
    held.get("r2").complete("{}");
    held.get("r4").complete("{}");
    assertThat(List.of(host.nextResult().getRequestId(), host.nextResult().getRequestId())).containsExactlyInAnyOrder("r2", "r4");
  }

  @Test
  void whileResultsPileUpThePackStopsReadingCalls() {
    FakePackHost host = host();
    PackStream stream = registered(builder(host.endpoint()).maxConcurrentCalls(2).tool(echo("echo")), host);
    host.holdResults();

    stream.call("r1", "echo", "{}");
    stream.call("r2", "echo", "{}");
    Wait.until("two deliveries under way", () -> host.attempts().size() == 2);
    stream.call("r3", "echo", "{}");

    Wait.sleep(300);
    assertThat(host.attempts()).extracting(ExecuteToolResponse::getRequestId).containsExactly("r1", "r2");
    host.releaseResults();
    assertThat(List.of(host.nextResult().getRequestId(), host.nextResult().getRequestId(), host.nextResult().getRequestId()))
      .containsExactlyInAnyOrder("r1", "r2", "r3");
  }

  @Test
  void aLateResultRefusedWithNotFoundIsDroppedAndThePackCarriesOn() {
    FakePackHost host = host().onResult(r -> r.getRequestId().equals("late")
      ? new FakePackHost.Answer(GrpcStatus.NOT_FOUND, "no pending call late (timed out)") : FakePackHost.Answer.OK);
    PackClient pack = started(builder(host.endpoint()).tool(echo("echo")));
    PackStream stream = host.nextStream();

    stream.call("late", "echo", "{\"x\":1}");
    stream.call("next", "echo", "{\"x\":2}");

    assertThat(host.nextResult().getRequestId()).isEqualTo("next");
    Wait.sleep(200);
    assertThat(host.attempts()).extracting(ExecuteToolResponse::getRequestId).containsExactlyInAnyOrder("late", "next");
    assertThat(pack.registration()).isPresent();
    host.expectNoStream(Duration.ofMillis(200));
  }

  @Test
  void aResultMeetingUnavailableIsTriedOnceMore() {
    AtomicInteger refusals = new AtomicInteger();
    FakePackHost host = host().onResult(r -> {
      if (r.getRequestId().equals("once") && refusals.getAndIncrement() == 0) {
        return new FakePackHost.Answer(GrpcStatus.UNAVAILABLE, "node_stopping: draining");
      }
      if (r.getRequestId().equals("never")) {
        return new FakePackHost.Answer(GrpcStatus.UNAVAILABLE, "node_stopping: draining");
      }
      return FakePackHost.Answer.OK;
    });
    PackStream stream = registered(builder(host.endpoint()).tool(echo("echo")), host);

    stream.call("once", "echo", "{}");
    assertThat(host.nextResult().getRequestId()).isEqualTo("once");

    stream.call("never", "echo", "{}");
    Wait.sleep(500);
    assertThat(host.attempts()).extracting(ExecuteToolResponse::getRequestId)
      .containsExactly("once", "once", "never", "never");
  }
}
