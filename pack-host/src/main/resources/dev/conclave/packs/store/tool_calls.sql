-- The record of pack tool calls (ToolCallLog, packs.tool_calls): one row per call, written in batches.

-- name: InsertBatch
-- one row per element of the arrays, which all have the same length; a call already recorded is
-- left as it is
INSERT INTO packs.tool_calls (id, client_request_id, agent_id, principal_id, tool_name, pack_id, origin,
  node, outcome, error, started_at, duration_ms)
SELECT * FROM unnest(:ids::uuid[], :requests::text[], :agents::text[], :principals::uuid[],
  :tools::text[], :packs::text[], :origins::text[], :nodes::text[], :outcomes::text[], :errors::text[],
  :started::timestamptz[], :durations::bigint[])
ON CONFLICT (id) DO NOTHING;

-- name: RecentOf
-- the newest calls of an agent, newest first
SELECT id, client_request_id, tool_name, pack_id, origin, node, outcome, error, started_at, duration_ms
FROM packs.tool_calls WHERE agent_id = :agent_id ORDER BY started_at DESC LIMIT :limit;
