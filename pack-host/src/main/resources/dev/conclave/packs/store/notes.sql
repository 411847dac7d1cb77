-- Agents' key/value notes (NoteStore, packs.notes), unique per (agent, key); scoped to one agent.

-- name: Set
-- creates the note, or replaces its value keeping its id and creation time
INSERT INTO packs.notes (id, agent_id, key, value, created_at, updated_at)
VALUES (:id, :agent_id, :key, :value, :now, :now)
ON CONFLICT (agent_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at;

-- name: Get
SELECT value FROM packs.notes WHERE agent_id = :agent_id AND key = :key;

-- name: Keys
-- the agent's keys in ascending order
SELECT key FROM packs.notes WHERE agent_id = :agent_id ORDER BY key LIMIT :limit;

-- name: Delete
DELETE FROM packs.notes WHERE agent_id = :agent_id AND key = :key;
