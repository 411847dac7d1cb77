package dev.conclave.gateway.control;

import dev.conclave.gateway.model.RequestRecord;
import dev.conclave.gateway.store.RequestStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * The trace an agent is working in, for its tool calls over MCP: MCP carries no request id, so the
 * pack host asks for the agent's request in flight and joins the trace stored with it in the ledger
 * (the one its dispatch continued). One indexed read, asked only while tracing is on.
 */
public final class RequestTraces {

  private final RequestStore requests;

  public RequestTraces(RequestStore requests) {
    this.requests = requests;
  }

  /** {@code {"requestId", "traceContext"}} of the agent's request in flight; {@code {}} when none, or stored without a trace. */
  public Future<JsonObject> ofAgent(String agentId) {
    return requests.inFlightOf(agentId).map(found -> found.filter(r -> r.traceContext().isPresent())
      .map(RequestTraces::json).orElseGet(JsonObject::new));
  }

  private static JsonObject json(RequestRecord r) {
    return new JsonObject().put("requestId", r.id().toString()).put("traceContext", r.traceContext().orElseThrow());
  }
}
