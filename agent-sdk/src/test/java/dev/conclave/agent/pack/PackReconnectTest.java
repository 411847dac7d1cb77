package dev.conclave.agent.pack;

import dev.conclave.agent.client.PackClient;
import dev.conclave.agent.testing.Wait;
import dev.conclave.proto.coven.ExecuteToolResponse;
import io.vertx.core.Promise;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** What a pack does when its stream ends: reconnect and register again, or stop. */
class PackReconnectTest extends PackTestBase {

  /** Records the listener's events as short strings. */
  private static final class Events implements PackListener {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void onRegistered(PackRegistration registration, boolean reconnect) {
      seen.add("registered reconnect=" + reconnect);
    }

    @Override
    public void onDisconnected(PackRegistration registration, Throwable cause, boolean willReconnect) {
      seen.add("disconnected willReconnect=" + willReconnect);
    }

    @Override
    public void onSuperseded(String message) {
      seen.add("superseded " + message);
    }

    @Override
    public void onStopped(Throwable cause) {
      seen.add("stopped " + (cause == null ? "-" : cause.getClass().getSimpleName()));
    }
  }

  @Test
  void registersAgainAfterTheServerDropsTheConnection() {
    FakePackHost host = host();
    Events events = new Events();
    PackClient pack = started(builder(host.endpoint()).tool(echo("echo")).listener(events));
    PackStream first = host.nextStream();

    first.dropConnection();
    PackStream second = host.nextStream();

    assertThat(second.manifest()).isEqualTo(first.manifest());
    Wait.until("registered again", () -> events.seen.contains("registered reconnect=true"));
    assertThat(events.seen).containsExactly("registered reconnect=false", "disconnected willReconnect=true",
      "registered reconnect=true");
    second.call("r1", "echo", "{\"again\":true}");
    assertThat(host.nextResult().getOutputJson()).isEqualTo("{\"again\":true}");
    assertThat(pack.registration()).isPresent();
  }

  @Test
  void movesToAnotherEndpointWhenANodeStops() {
    FakePackHost a = host();
    FakePackHost b = host();
    PackClient pack = started(builder(a.endpoint(), b.endpoint()).tool(echo("echo")));

    a.nextStream().endWith(GrpcStatus.UNAVAILABLE, "node_stopping: rolling update");

    b.nextStream().manifest();
    Wait.until("registered on the other node", () -> pack.registration()
      .map(r -> r.endpoint().equals(b.endpoint())).orElse(false));
  }

  @Test
  void stopsWhenSuperseded() {
    FakePackHost host = host();
    Events events = new Events();
    PackClient pack = started(builder(host.endpoint()).tool(echo("echo")).listener(events));

    host.nextStream().endWith(GrpcStatus.ABORTED, "superseded: pack weather registered on node-b");

    Throwable cause = Wait.failure(pack.closed());
    assertThat(cause).isInstanceOf(PackSupersededException.class);
    assertThat(events.seen).containsExactly("registered reconnect=false", "disconnected willReconnect=false",
      "superseded superseded: pack weather registered on node-b", "stopped PackSupersededException");
    assertThat(pack.registration()).isEmpty();
    host.expectNoStream(Duration.ofMillis(500));
  }

  @Test
  void anotherAbortReconnects() {
    FakePackHost host = host();
    started(builder(host.endpoint()).tool(echo("echo")));

    host.nextStream().endWith(GrpcStatus.ABORTED, "transaction conflict");

    host.nextStream().manifest();
  }

  @Test
  void closeEndsTheStreamStopsReconnectingAndDropsLateResults() {
    FakePackHost host = host();
    List<Promise<String>> running = new CopyOnWriteArrayList<>();
    PackTool slow = PackTool.builder("slow").handler(call -> {
      Promise<String> p = Promise.promise();
      running.add(p);
      return p.future();
    }).build();
    Events events = new Events();
    PackClient pack = started(builder(host.endpoint()).tool(slow).listener(events));
    PackStream stream = host.nextStream();
    stream.call("r1", "slow", "{}");
    Wait.until("the call runs", () -> running.size() == 1);

    Wait.result(pack.close());

    stream.awaitEnd(FakePackHost.WAIT);
    running.get(0).complete("{\"too\":\"late\"}");
    host.expectNoResult(Duration.ofMillis(300));
    host.expectNoStream(Duration.ofMillis(300));
    assertThat(host.attempts()).extracting(ExecuteToolResponse::getRequestId).isEmpty();
    assertThat(events.seen).endsWith("stopped -");
    assertThat(pack.registration()).isEmpty();
    Wait.result(pack.closed());
  }

  @Test
  void closeWaitsOnlyBrieflyForResultsUnderWay() {
    FakePackHost host = host();
    PackClient pack = started(builder(host.endpoint()).closeGrace(Duration.ofMillis(300)).tool(echo("echo")));
    host.holdResults();
    host.nextStream().call("r1", "echo", "{}");
    Wait.until("the result is under way", () -> host.attempts().size() == 1);

    long began = System.nanoTime();
    Wait.result(pack.close());

    // the results are held until released, so completing at all shows close did not wait for them;
    // no upper bound on the time, which a loaded machine can exceed
    assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
    host.releaseResults();
  }
}
