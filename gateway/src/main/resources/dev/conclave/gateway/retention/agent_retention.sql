-- Per-agent retention overrides (AgentRetentionStore): one row in agent_retention per agent that
-- overrides the node's conversation window or kept events; NULL columns are the node's setting.

-- name: Find
-- the agent's override (NULLs when it has none); no row when no agent of that id has registered
SELECT a.agent_id, r.conversation_days, r.keep_events
FROM gateway.agents a LEFT JOIN gateway.agent_retention r ON r.agent_id = a.agent_id
WHERE a.agent_id = :agent_id;

-- name: Set
-- sets both columns (NULL is the setting); both NULL deletes the row, so an agent without an override
-- has none; no row when no agent of that id has registered
WITH agent AS (
  SELECT agent_id FROM gateway.agents WHERE agent_id = :agent_id),
cleared AS (
  DELETE FROM gateway.agent_retention r USING agent a
  WHERE r.agent_id = a.agent_id AND :days::int IS NULL AND :keep::int IS NULL),
written AS (
  INSERT INTO gateway.agent_retention (agent_id, conversation_days, keep_events, updated_by)
  SELECT agent_id, :days::int, :keep::int, :updated_by::uuid FROM agent WHERE :days::int IS NOT NULL OR :keep::int IS NOT NULL
  ON CONFLICT (agent_id) DO UPDATE SET conversation_days = EXCLUDED.conversation_days, keep_events = EXCLUDED.keep_events,
    updated_at = now(), updated_by = EXCLUDED.updated_by
  RETURNING agent_id, conversation_days, keep_events)
SELECT a.agent_id, w.conversation_days, w.keep_events FROM agent a LEFT JOIN written w ON w.agent_id = a.agent_id;
