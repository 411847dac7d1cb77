-- Retention deletes old tool-call records (ToolCallRetention) in batches: it finds them by start time.
CREATE INDEX tool_calls_started ON tool_calls (started_at);
