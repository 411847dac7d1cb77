-- Frontend channels bound to agents (BindingStore): operators' bindings, and those the gateway writes itself.

-- name: BindTask
-- Points a swarm task's conversation (swarm:<taskId>) at the agent that holds the task now: a new
-- binding, or the task's binding moved from the agent that held it before (a retry elsewhere).
INSERT INTO gateway.bindings (id, frontend, channel_id, agent_id, created_by)
VALUES (:id, :frontend, :channel_id, :agent_id, :created_by)
ON CONFLICT (frontend, channel_id) DO UPDATE SET agent_id = EXCLUDED.agent_id

-- name: Create
-- An operator's binding; no row when the channel is bound already.
INSERT INTO gateway.bindings (id, frontend, channel_id, agent_id, created_by)
VALUES (:id, :frontend, :channel_id, :agent_id, :created_by)
ON CONFLICT (frontend, channel_id) DO NOTHING
RETURNING id, frontend, channel_id, agent_id, created_at, created_by;

-- name: UpdateAgent
UPDATE gateway.bindings SET agent_id = :agent_id WHERE id = :id
RETURNING id, frontend, channel_id, agent_id, created_at, created_by;

-- name: Delete
DELETE FROM gateway.bindings WHERE id = :id
RETURNING id, frontend, channel_id, agent_id, created_at, created_by;

-- name: List
SELECT id, frontend, channel_id, agent_id, created_at, created_by
FROM gateway.bindings
WHERE (:frontend::text IS NULL OR frontend = :frontend) AND (:agent_id::text IS NULL OR agent_id = :agent_id)
ORDER BY frontend, channel_id;

-- name: Route
-- Where a client's message goes, whether that agent is retired, and the sender's display name. A
-- conversation goes to the agent bound to <frontend>:<channel> (:frontend, :channel), else to the known
-- agent whose id is the key; the statement that stores the message checks the same again
-- (mailbox/mailbox.sql's EnqueueWithInbound). An agent that never registered is not retired (a binding may name
-- one: its messages wait for it).
SELECT t.agent,
       COALESCE((SELECT lifecycle = 'retired' FROM gateway.agents WHERE agent_id = t.agent), false) AS retired,
       (SELECT display_name FROM auth.principals WHERE id = :principal_id) AS sender
FROM (SELECT COALESCE((SELECT agent_id FROM gateway.bindings WHERE frontend = :frontend AND channel_id = :channel),
                      (SELECT agent_id FROM gateway.agents WHERE agent_id = :conversation_key)) AS agent) t;
