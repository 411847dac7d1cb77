-- Retention of the tool-call log (ToolCallRetention): records of calls started before the window.

-- name: DeleteBatch
WITH doomed AS (
  SELECT id FROM packs.tool_calls WHERE started_at < now() - :window_s * interval '1 second' LIMIT :limit FOR UPDATE SKIP LOCKED)
DELETE FROM packs.tool_calls t USING doomed d WHERE t.id = d.id
RETURNING 'tool-calls' AS kind, to_jsonb(t)::text AS line;
