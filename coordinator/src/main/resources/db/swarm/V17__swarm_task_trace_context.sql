-- A task's trace (issue 44): the W3C traceparent of the span that created it (the creator's own
-- traceparent as that span's parent, or a new root), so that its attempts, on whichever node and
-- whenever they end, are spans of that trace, and the agent that claims it can join it. Nullable,
-- no default: adding it rewrites nothing; NULL for tasks created outside a trace.
ALTER TABLE swarm.tasks ADD COLUMN trace_context text;
