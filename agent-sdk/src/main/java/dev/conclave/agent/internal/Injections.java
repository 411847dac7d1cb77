package dev.conclave.agent.internal;

import dev.conclave.agent.Feature;
import dev.conclave.agent.InjectionDecision;
import dev.conclave.proto.coven.AgentMessage;
import dev.conclave.proto.coven.InjectContext;
import dev.conclave.proto.coven.InjectionAck;
import io.vertx.core.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers every {@code InjectContext} with an {@code InjectionAck}: the handler decides when the
 * agent declared the feature; otherwise, or when the handler fails, the injection is declined.
 */
final class Injections {

  private static final Logger LOG = LoggerFactory.getLogger(Injections.class);

  private Injections() {
  }

  static void answer(ClientContext context, ClientConfig config, GatewayStream s, InjectContext inject) {
    String log = "agent=" + config.agentId();
    Future<InjectionDecision> decision;
    if (!config.declares(Feature.INJECTION)) {
      LOG.warn("declining InjectContext: this agent did not declare injection {} injection={}", log, inject.getInjectionId());
      decision = Future.succeededFuture(InjectionDecision.reject("this agent did not declare the injection feature"));
    } else {
      decision = OnContext.callback(context, () -> config.handler().onInjection(Protos.injection(inject)));
    }
    decision.onComplete(ar -> {
      InjectionDecision d = ar.succeeded() && ar.result() != null ? ar.result()
        : InjectionDecision.reject("the agent failed to take the injected context: "
          + (ar.failed() ? GatewayStream.describe(ar.cause()) : "no decision"));
      if (ar.failed()) {
        LOG.warn("injection hook failed {} injection={}", log, inject.getInjectionId(), ar.cause());
      }
      InjectionAck.Builder ack = InjectionAck.newBuilder().setInjectionId(inject.getInjectionId()).setAccepted(d.accepted());
      d.reason().ifPresent(ack::setReason);
      s.write(AgentMessage.newBuilder().setInjectionAck(ack).build())
        .onFailure(err -> LOG.warn("could not acknowledge injection {} injection={} error={}", log, inject.getInjectionId(), err.getMessage()));
    });
  }
}
