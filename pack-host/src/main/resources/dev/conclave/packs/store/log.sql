-- Agents' activity logs (LogStore, packs.log_entries); every statement is scoped to one agent.

-- name: Add
INSERT INTO packs.log_entries (id, agent_id, message, tags, created_at)
VALUES (:id, :agent_id, :message, :tags, :now);

-- name: Search
-- the agent's entries, newest first; :pattern is an ILIKE pattern with '\' as its escape, or null
-- for any message, :since the earliest creation time (inclusive), or null for any
SELECT id, agent_id, message, tags, created_at FROM packs.log_entries
WHERE agent_id = :agent_id
  AND (:pattern::text IS NULL OR message ILIKE :pattern::text ESCAPE '\')
  AND (:since::timestamptz IS NULL OR created_at >= :since::timestamptz)
ORDER BY created_at DESC, seq DESC LIMIT :limit;
