-- The W3C trace context (traceparent) of the call that sent a request, stored with the request so
-- that its dispatch, on whichever node holds the agent's stream, after a restart or a failover,
-- continues the client's trace (docs/observability.md). Null when tracing was off or the call
-- carried no sampled trace.
ALTER TABLE gateway.requests ADD COLUMN trace_context text;
