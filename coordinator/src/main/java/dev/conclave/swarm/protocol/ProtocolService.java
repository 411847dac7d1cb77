package dev.conclave.swarm.protocol;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.metrics.SwarmMetrics;
import dev.conclave.swarm.security.AgentSecrets;
import dev.conclave.swarm.tracing.ClaimSpans;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.time.Instant;

/**
 * The one implementation of the protocol behind every coordinator transport: a validated request goes
 * to the swarm functions in PostgreSQL (batched), and comes back as the spec's response or as the
 * problem the database reported. A REGISTER that carries a secret salt answers with the agent's new
 * HMAC secret ({@code agentSecret}).
 */
public final class ProtocolService {

  private final DispatchBatcher batcher;
  private final AgentSecrets secrets;
  private final SwarmMetrics metrics;
  private final ClaimSpans claims;

  public ProtocolService(DispatchBatcher batcher, AgentSecrets secrets, SwarmMetrics metrics, ClaimSpans claims) {
    this.batcher = batcher;
    this.metrics = metrics;
    this.secrets = secrets;
    this.claims = claims;
    for (Operation operation : Operation.values()) {
      metrics.declare(operation.name());
    }
  }

  public Future<ProtocolReply> execute(ProtocolCall call) {
    if (call.operation() == Operation.CLAIM && claims.enabled()) {
      // (the caller's span is current now, in the request's handler; not when the batch answers)
      Instant start = Instant.now();
      SpanContext caller = Span.current().getSpanContext();
      return run(call).onSuccess(reply ->
        claims.claimed(start, caller, ProtocolRequests.agentId(Operation.CLAIM, call.request()), reply.json()));
    }
    return run(call);
  }

  private Future<ProtocolReply> run(ProtocolCall call) {
    return batcher.submit(call.toBatchItem()).compose(result -> {
      JsonObject error = result.error();
      if (error != null) {
        metrics.request(call.operation().name(), error.getString("code", "error"));
        return Future.failedFuture(SwarmErrors.fromDatabase(error));
      }
      metrics.request(call.operation().name(), "ok");
      if (call.operation() == Operation.REGISTER && call.secretSalt() != null) {
        JsonObject response = new JsonObject(result.ok());
        String agentId = ProtocolRequests.agentId(Operation.REGISTER, call.request());
        response.put("agentSecret", secrets.secretFor(agentId, call.secretSalt()));
        return Future.succeededFuture(ProtocolReply.of(response));
      }
      return Future.succeededFuture(ProtocolReply.ofJson(result.ok()));
    });
  }
}
