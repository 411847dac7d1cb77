package dev.conclave.agent;

import dev.conclave.agent.testing.AgentConn;
import dev.conclave.agent.testing.FakeGateway;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.InjectionAck;
import io.vertx.core.Future;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

class InjectionTest extends ClientTestBase {

  private AgentHandler injectionHandler(List<Injection> seen) {
    return new AgentHandler() {
      @Override
      public Future<Void> handle(IncomingMessage message, ResponseStream response) {
        return response.done();
      }

      @Override
      public Future<InjectionDecision> onInjection(Injection injection) {
        seen.add(injection);
        if (injection.content().contains("explode")) {
          throw new IllegalStateException("cannot digest that");
        }
        return Future.succeededFuture(injection.content().startsWith("ok")
          ? InjectionDecision.accept() : InjectionDecision.reject("not relevant"));
      }
    };
  }

  private static InjectionAck nextAck(AgentConn conn) {
    AgentMessage m = conn.next();
    assertThat(m.hasInjectionAck()).as("expected an InjectionAck, got %s", m).isTrue();
    return m.getInjectionAck();
  }

  @Test
  void injectionsAreHandedToTheHookAndAcknowledged() {
    FakeGateway gw = gateway("node-a");
    List<Injection> seen = new CopyOnWriteArrayList<>();
    started(builder(gw.endpoint()).features(Feature.INJECTION).handler(injectionHandler(seen)));
    AgentConn conn = gw.nextConnection();

    conn.inject("inj-1", "ok: the build is green");
    InjectionAck accepted = nextAck(conn);
    assertThat(accepted.getInjectionId()).isEqualTo("inj-1");
    assertThat(accepted.getAccepted()).isTrue();
    assertThat(accepted.hasReason()).isFalse();

    conn.inject("inj-2", "weather in Paris");
    InjectionAck rejected = nextAck(conn);
    assertThat(rejected.getInjectionId()).isEqualTo("inj-2");
    assertThat(rejected.getAccepted()).isFalse();
    assertThat(rejected.getReason()).isEqualTo("not relevant");

    assertThat(seen).extracting(Injection::injectionId).containsExactly("inj-1", "inj-2");
    assertThat(seen.get(0).priority()).isEqualTo(InjectionPriority.IMMEDIATE);
    assertThat(seen.get(0).source()).contains("system");
  }

  @Test
  void aFailingHookRejectsTheInjection() {
    FakeGateway gw = gateway("node-a");
    started(builder(gw.endpoint()).features(Feature.INJECTION).handler(injectionHandler(new CopyOnWriteArrayList<>())));
    AgentConn conn = gw.nextConnection();

    conn.inject("inj-3", "please explode");
    InjectionAck ack = nextAck(conn);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("cannot digest that");
  }

  @Test
  void undeclaredInjectionIsDeclinedWithoutCallingTheHook() {
    FakeGateway gw = gateway("node-a");
    List<Injection> seen = new CopyOnWriteArrayList<>();
    started(builder(gw.endpoint()).handler(injectionHandler(seen)));
    AgentConn conn = gw.nextConnection();

    conn.inject("inj-4", "ok: anything");
    InjectionAck ack = nextAck(conn);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("injection");
    assertThat(seen).isEmpty();
  }
}
